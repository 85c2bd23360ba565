// A buffer given to an overlapped NCCL transfer stays borrowed until the
// transfers finish: while they run, no kernel can write a buffer being
// sent or touch one being received.
use cg_samples::kernels::Kernels;
use cooperative_groups::nccl::{Communicator, UniqueId};
use cooperative_groups::{Gpu, LaunchConfig};

fn main() -> Result<(), cooperative_groups::Error> {
    let gpu = Gpu::new(0)?;
    let k = Kernels::load(&gpu)?;
    let id = UniqueId::new()?;
    let comm = Communicator::for_rank_overlapping(&gpu, 0, 2, &id)?;
    let field = gpu.upload(&[0f32; 64])?;
    let mut sent = gpu.filled(64, 0f32)?;
    let mut received = gpu.filled(64, 0f32)?;
    let mut x = comm.overlap();
    x.send(&sent, 0..8, 1)?;
    x.recv(&mut received, 0..8, 1)?;
    let transfers = x.start()?;
    let cfg = LaunchConfig::new(1, 64);
    k.jacobi_sweep.launch(cfg, &field, &mut sent, 8, 8)?;
    k.jacobi_sweep.launch(cfg, &received, &mut sent, 8, 8)?;
    transfers.finish()
}
