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
    let listeners = free_listeners::<N>()?;
    let mut ports = [0; N];
    for (port, listener) in ports.iter_mut().zip(&listeners) {
        *port = listener
            .local_addr()
            .map_err(|e| Error::io("127.0.0.1:0", e))?
            .port();
    }
    Ok(ports)
}

/// Listeners on `N` such ports, held: the ports are free until they are dropped.
fn free_listeners<const N: usize>() -> Result<Vec<TcpListener>, Error> {
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
    Ok(listeners)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Checked while the listeners are held: once they are dropped, any other test or process
    // may take a port (CI of d9a72cb failed binding one after the drop).
    #[test]
    fn ports_are_distinct_free_and_outside_the_ephemeral_range() {
        let listeners = free_listeners::<3>().unwrap();
        let ports: Vec<u16> = listeners
            .iter()
            .map(|l| l.local_addr().unwrap().port())
            .collect();
        assert!(ports[0] != ports[1] && ports[1] != ports[2] && ports[0] != ports[2]);
        // Linux says where its ephemeral range starts; elsewhere the ports only need be free.
        let range = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range");
        for (listener, port) in listeners.iter().zip(&ports) {
            if let Ok(range) = &range {
                let start: u16 = range.split_whitespace().next().unwrap().parse().unwrap();
                assert!((LOWEST..start).contains(port), "{port} not below {start}");
            }
            assert!(listener.local_addr().unwrap().ip().is_unspecified());
            // On Linux a listener on 0.0.0.0 holds the port on every address: a server that
            // binds it on loopback (etcd, the API server) cannot be beaten to it by another
            // caller, which would have to bind it first.
            #[cfg(target_os = "linux")]
            {
                let err = TcpListener::bind(("127.0.0.1", *port)).unwrap_err();
                assert_eq!(err.kind(), std::io::ErrorKind::AddrInUse, "{port}: {err}");
            }
        }
    }
}
