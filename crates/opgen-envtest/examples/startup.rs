//! Measures how long a control plane takes from nothing to a ready API server, and to stop.
//!
//!     cargo run --release -p opgen-envtest --example startup -- [runs]

use std::time::Instant;

#[tokio::main]
async fn main() -> Result<(), opgen_envtest::Error> {
    let runs: usize = std::env::args()
        .nth(1)
        .map_or(5, |n| n.parse().expect("runs is a number"));
    let assets = opgen_envtest::Assets::locate()?;
    println!("binaries: {}", assets.dir().display());
    let mut startups = Vec::new();
    for run in 1..=runs {
        let control_plane = opgen_envtest::ControlPlane::start_with(assets.clone()).await?;
        let startup = control_plane.startup_time();
        let stopping = Instant::now();
        drop(control_plane);
        println!(
            "run {run}: ready in {:.2} s, stopped in {:.3} s",
            startup.as_secs_f64(),
            stopping.elapsed().as_secs_f64()
        );
        startups.push(startup.as_secs_f64());
    }
    startups.sort_by(f64::total_cmp);
    println!(
        "ready: min {:.2} s, median {:.2} s, max {:.2} s",
        startups[0],
        startups[startups.len() / 2],
        startups[startups.len() - 1]
    );
    Ok(())
}
