//! Runs my-app's kernels once and prints what they computed.

use std::process::ExitCode;

fn main() -> ExitCode {
    let gpu = match cooperative_groups::Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let x: Vec<f32> = (0..1000).map(|i| i as f32 - 500.0).collect();
    let y = vec![1.0f32; x.len()];
    let run = || -> cooperative_groups::Result<()> {
        let z = my_app::saxpy(&gpu, 2.0, &x, &y)?;
        println!("saxpy: z[0] = {}, z[999] = {}", z[0], z[999]);
        println!("count_positive: {}", my_app::count_positive(&gpu, &x)?);
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
