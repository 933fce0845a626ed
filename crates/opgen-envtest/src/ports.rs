//! Free loopback ports for servers that bind them later (etcd, the API server, a test's
//! webhook server). A port from `bind(127.0.0.1:0)` comes from the kernel's ephemeral range,
//! which it also hands out as the local port of every outgoing connection: between finding
//! such a port and the server binding it, one of a busy test run's many connections can take
//! it, and the server cannot start. Ports below that range are never handed out that way.

use std::hash::{BuildHasher, RandomState};
use std::net::TcpListener;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::Error;

/// Where the search starts when the ephemeral range leaves room below it.
const LOWEST: u16 = 10_000;

/// `N` distinct ports that nothing listens on now, below the ephemeral range where it leaves
/// room (from a random start, so that concurrent callers rarely try the same ports), else
/// from the kernel.
pub(crate) fn free_ports<const N: usize>() -> Result<[u16; N], Error> {
    let ephemeral_start = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32_768);
    // All N listeners are held at once, so the ports differ.
    let mut listeners = Vec::with_capacity(N);
    if let Some(span) = ephemeral_start.checked_sub(LOWEST).filter(|s| *s >= 1_000) {
        static CALLS: AtomicU64 = AtomicU64::new(0);
        let seed = RandomState::new().hash_one(CALLS.fetch_add(1, Ordering::Relaxed));
        for step in 0..u64::from(span) {
            let port = LOWEST + (seed.wrapping_add(step) % u64::from(span)) as u16;
            // 0.0.0.0 conflicts with a listener on any address, as a manager's server binds.
            if let Ok(listener) = TcpListener::bind(("0.0.0.0", port)) {
                listeners.push(listener);
                if listeners.len() == N {
                    break;
                }
            }
        }
    }
    while listeners.len() < N {
        listeners.push(TcpListener::bind("127.0.0.1:0").map_err(|e| Error::io("127.0.0.1:0", e))?);
    }
    let mut ports = [0; N];
    for (port, listener) in ports.iter_mut().zip(&listeners) {
        *port = listener
            .local_addr()
            .map_err(|e| Error::io("127.0.0.1:0", e))?
            .port();
    }
    Ok(ports)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_distinct_free_and_outside_the_ephemeral_range() {
        let ports = free_ports::<3>().unwrap();
        assert!(ports[0] != ports[1] && ports[1] != ports[2] && ports[0] != ports[2]);
        // Linux says where its ephemeral range starts; elsewhere the ports only need be free.
        let range = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range");
        for port in ports {
            if let Ok(range) = &range {
                let start: u16 = range.split_whitespace().next().unwrap().parse().unwrap();
                assert!((LOWEST..start).contains(&port), "{port} not below {start}");
            }
            TcpListener::bind(("127.0.0.1", port)).unwrap();
        }
    }
}
