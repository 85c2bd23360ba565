use cooperative_groups::Gpu;
use cg_samples::kernels::Kernels;

fn scale_neighbour_sum(gpu: &Gpu, input: &[f32], factor: f32) -> Result<Vec<f32>, cooperative_groups::Error> {
    let k = Kernels::load(gpu)?;
    let input = gpu.upload(input)?;
    let mut scaled = gpu.filled(input.len(), f32::NAN)?;
    let mut out = gpu.filled(input.len(), f32::NAN)?;
    // The largest grid whose blocks are all resident at once.
    let cfg = k.scale_neighbour_sum.function().cooperative_config(256, 0)?;
    k.scale_neighbour_sum.launch(cfg, &input, &mut scaled, &mut out, factor)?;
    out.to_vec()
}
