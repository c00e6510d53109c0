//! The fused SDPA kernels against borch's math path (itself frozen against torch by the golden
//! families `attention` and `attention_fused`): every option, shapes crossing the kernels'
//! block edges (64 rows a workgroup, 4 to 32 keys a block), forward and backward; and the
//! dispatches of a fused forward (1) and backward (4).

use std::sync::Mutex;

use borch_autograd::backward;
use borch_nn::functional::{Sdpa, scaled_dot_product_attention};
use borch_tensor::{
    DType, SdpaOptions, SdpaPath, Tensor, default_device, manual_seed, rand, randn, sdpa_fusable,
    set_sdpa_path,
};

/// The path is process-wide: the tests here take turns.
static PATH: Mutex<()> = Mutex::new(());

fn leaf(shape: &[usize]) -> Tensor {
    let t = randn(shape, None).unwrap();
    t.set_requires_grad(true).unwrap();
    t
}

fn host(t: &Tensor) -> Vec<f64> {
    t.to_host_blocking().unwrap().to_f64()
}

struct Case {
    name: &'static str,
    q: Vec<usize>,
    k: Vec<usize>,
    v: Vec<usize>,
    mask: Option<(Vec<usize>, DType)>,
    causal: bool,
    scale: Option<f64>,
    gqa: bool,
    /// Transpose the key's last two dims in storage (a strided key).
    key_t: bool,
}

fn case(name: &'static str, q: &[usize], k: &[usize], v: &[usize]) -> Case {
    Case {
        name,
        q: q.to_vec(),
        k: k.to_vec(),
        v: v.to_vec(),
        mask: None,
        causal: false,
        scale: None,
        gqa: false,
        key_t: false,
    }
}

/// Output and gradients of q, k, v by the current path.
fn run(c: &Case, seed: u64) -> Vec<Vec<f64>> {
    manual_seed(seed);
    let q = leaf(&c.q);
    let k = if c.key_t {
        let mut s = c.k.clone();
        let n = s.len();
        s.swap(n - 1, n - 2);
        let base = leaf(&s);
        (base.clone(), base.transpose(-2, -1).unwrap())
    } else {
        let t = leaf(&c.k);
        (t.clone(), t)
    };
    let v = leaf(&c.v);
    let mask = c.mask.as_ref().map(|(shape, dt)| match dt {
        DType::Bool => rand(shape, None).unwrap().gt(0.3).unwrap(),
        _ => randn(shape, None).unwrap(),
    });
    let o = Sdpa {
        attn_mask: mask.as_ref(),
        dropout_p: 0.0,
        is_causal: c.causal,
        scale: c.scale,
        enable_gqa: c.gqa,
    };
    let device = default_device().unwrap();
    let d0 = device.dispatches();
    let out = scaled_dot_product_attention(&q, &k.1, &v, &o).unwrap();
    let forward = device.dispatches() - d0;
    let g = randn(out.shape(), None).unwrap();
    backward(&out, Some(&g), false).unwrap();
    vec![
        host(&out),
        host(&q.grad().unwrap()),
        host(&k.0.grad().unwrap()),
        host(&v.grad().unwrap()),
        vec![forward as f64],
    ]
}

fn cases() -> Vec<Case> {
    let mut out = vec![
        case(
            "edges_L70_S37_E8",
            &[1, 2, 70, 8],
            &[1, 2, 37, 8],
            &[1, 2, 37, 8],
        ),
        case("E3_Ev5_odd", &[2, 65, 3], &[2, 33, 3], &[2, 33, 5]),
        case("E64", &[1, 1, 9, 64], &[1, 1, 40, 64], &[1, 1, 40, 64]),
        case("E128", &[1, 1, 5, 128], &[1, 1, 17, 128], &[1, 1, 17, 128]),
        case("E80_Ev96", &[1, 2, 66, 80], &[1, 2, 6, 80], &[1, 2, 6, 96]),
        case("2d", &[67, 4], &[5, 4], &[5, 2]),
        case(
            "E64_L130_S131",
            &[1, 1, 130, 64],
            &[1, 1, 131, 64],
            &[1, 1, 131, 64],
        ),
        case(
            "E36_Ev20",
            &[1, 2, 70, 36],
            &[1, 2, 100, 36],
            &[1, 2, 100, 20],
        ),
        case("broadcast_batch", &[2, 2, 3, 4], &[2, 33, 4], &[1, 33, 4]),
    ];
    let mut c = case(
        "causal_L70_S70",
        &[1, 2, 70, 8],
        &[1, 2, 70, 8],
        &[1, 2, 70, 8],
    );
    c.causal = true;
    out.push(c);
    let mut c = case(
        "causal_L70_S9",
        &[1, 1, 70, 8],
        &[1, 1, 9, 8],
        &[1, 1, 9, 4],
    );
    c.causal = true;
    out.push(c);
    let mut c = case("causal_L9_S70", &[2, 9, 8], &[2, 70, 8], &[2, 70, 8]);
    c.causal = true;
    c.scale = Some(-0.4);
    out.push(c);
    let mut c = case(
        "causal_E64_L129",
        &[1, 2, 129, 64],
        &[1, 2, 129, 64],
        &[1, 2, 129, 64],
    );
    c.causal = true;
    out.push(c);
    let mut c = case(
        "float_mask_S97",
        &[1, 2, 66, 16],
        &[1, 2, 97, 16],
        &[1, 2, 97, 16],
    );
    c.mask = Some((vec![1, 2, 66, 97], DType::Float32));
    out.push(c);
    let mut c = case("bool_mask", &[2, 2, 66, 8], &[2, 2, 35, 8], &[2, 2, 35, 8]);
    c.mask = Some((vec![2, 1, 66, 35], DType::Bool));
    out.push(c);
    let mut c = case("float_mask", &[2, 2, 66, 8], &[2, 2, 35, 8], &[2, 2, 35, 8]);
    c.mask = Some((vec![66, 35], DType::Float32));
    c.scale = Some(0.7);
    out.push(c);
    let mut c = case("gqa_6_3_1", &[2, 6, 65, 8], &[2, 3, 34, 8], &[2, 1, 34, 4]);
    c.gqa = true;
    c.causal = true;
    out.push(c);
    let mut c = case(
        "key_strided",
        &[1, 2, 65, 8],
        &[1, 2, 33, 8],
        &[1, 2, 33, 8],
    );
    c.key_t = true;
    out.push(c);
    out
}

#[test]
fn fused_agrees_with_the_math_path() {
    let _turn = PATH.lock().unwrap_or_else(|p| p.into_inner());
    let mut bad = Vec::new();
    let fused_paths = [SdpaPath::Auto, SdpaPath::Rows, SdpaPath::TiledBlock32];
    for ((n, c), path) in cases()
        .iter()
        .enumerate()
        .flat_map(|c| fused_paths.map(|p| (c, p)))
    {
        set_sdpa_path(path);
        let fused = run(c, n as u64);
        set_sdpa_path(SdpaPath::Math);
        let math = run(c, n as u64);
        set_sdpa_path(SdpaPath::Auto);
        // The fused path ran: one dispatch (the math path takes several), and one copy for a
        // key whose columns are strided.
        let want = if c.key_t { 2.0 } else { 1.0 };
        if fused[4] != [want] {
            bad.push(format!(
                "{} {path:?}: {} forward dispatches",
                c.name, fused[4][0]
            ));
        }
        for (what, (a, b)) in ["out", "dq", "dk", "dv"]
            .iter()
            .zip(fused.iter().zip(&math))
        {
            let worst = a
                .iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs() / (1.0 + y.abs()))
                .fold(0.0, f64::max);
            if a.len() != b.len() || worst.is_nan() || worst > 1e-4 {
                bad.push(format!("{} {path:?} {what}: worst {worst:e}", c.name));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn fused_forward_is_one_dispatch_and_backward_four() {
    let _turn = PATH.lock().unwrap_or_else(|p| p.into_inner());
    set_sdpa_path(SdpaPath::Auto);
    let device = default_device().unwrap();
    let (q, k, v) = (
        leaf(&[2, 2, 70, 8]),
        leaf(&[2, 2, 37, 8]),
        leaf(&[2, 2, 37, 8]),
    );
    let mask = rand(&[70, 37], None).unwrap().gt(0.2).unwrap();
    let fused = SdpaOptions {
        attn_mask: Some(&mask),
        is_causal: false,
        scale: 0.5,
        enable_gqa: false,
    };
    assert!(sdpa_fusable(&q, &k, &v, 0.0, &fused));
    let g = randn(&[2, 2, 70, 8], None).unwrap();
    let o = Sdpa {
        attn_mask: Some(&mask),
        ..Sdpa::default()
    };
    device.synchronize().unwrap();
    let d0 = device.dispatches();
    let out = scaled_dot_product_attention(&q, &k, &v, &o).unwrap();
    let d1 = device.dispatches();
    backward(&out, Some(&g), false).unwrap();
    let d2 = device.dispatches();
    assert_eq!(d1 - d0, 1, "forward dispatches");
    assert_eq!(d2 - d1, 4, "backward dispatches (delta, dQ, dK, dV)");
    // Dropout keeps the math path (torch's RNG stream).
    assert!(!sdpa_fusable(&q, &k, &v, 0.1, &fused));
}

/// Which forward kernel each path launches: the tiled one (with the block asked for) where it
/// fits, the rows kernel for `SdpaPath::Rows` and for head dims above 64.
#[test]
fn tiled_forward_runs_where_it_fits() {
    let _turn = PATH.lock().unwrap_or_else(|p| p.into_inner());
    let device = default_device().unwrap();
    let forward_kernel = |path: SdpaPath, e: usize| {
        set_sdpa_path(path);
        let (q, k, v) = (
            leaf(&[1, 1, 66, e]),
            leaf(&[1, 1, 40, e]),
            leaf(&[1, 1, 40, e]),
        );
        device.set_profiling(true).unwrap();
        let out = scaled_dot_product_attention(&q, &k, &v, &Sdpa::default()).unwrap();
        device.set_profiling(false).unwrap();
        set_sdpa_path(SdpaPath::Auto);
        drop(out);
        let keys: Vec<String> = device.take_profile().into_iter().map(|k| k.key).collect();
        assert_eq!(keys.len(), 1, "{keys:?}");
        // The key: sdpa|pass|e|ev|block|mask, then the grid.
        keys[0].split('|').take(5).collect::<Vec<_>>().join("|")
    };
    assert_eq!(
        forward_kernel(SdpaPath::TiledBlock32, 8),
        "sdpa|TiledForward|8|8|32"
    );
    assert!(forward_kernel(SdpaPath::Auto, 64).starts_with("sdpa|TiledForward|64|64|"));
    assert!(forward_kernel(SdpaPath::Rows, 8).starts_with("sdpa|Forward|8|8|"));
    assert!(forward_kernel(SdpaPath::Auto, 80).starts_with("sdpa|Forward|80|80|"));
}

/// A backward that builds a graph (`create_graph`) takes the fused op's composed derivative
/// (the math path recomputed from the recorded inputs, with a graph): the same gradients.
#[test]
fn create_graph_backward_goes_through_the_math_path() {
    let _turn = PATH.lock().unwrap_or_else(|p| p.into_inner());
    let grads = |path: SdpaPath| {
        set_sdpa_path(path);
        manual_seed(3);
        let (q, k, v) = (
            leaf(&[1, 2, 66, 4]),
            leaf(&[1, 2, 35, 4]),
            leaf(&[1, 2, 35, 4]),
        );
        let mask = rand(&[66, 35], None).unwrap().gt(0.2).unwrap();
        let o = Sdpa {
            attn_mask: Some(&mask),
            ..Sdpa::default()
        };
        let d0 = default_device().unwrap().dispatches();
        let out = scaled_dot_product_attention(&q, &k, &v, &o).unwrap();
        let forward = default_device().unwrap().dispatches() - d0;
        let g = randn(out.shape(), None).unwrap();
        let inputs = [q, k, v];
        let d1 = default_device().unwrap().dispatches();
        let gs = borch_autograd::grad(&[out], &inputs, &[Some(g)], None, true, false).unwrap();
        let back = default_device().unwrap().dispatches() - d1;
        set_sdpa_path(SdpaPath::Auto);
        let mut r: Vec<Vec<f64>> = gs.iter().map(|g| host(g.as_ref().unwrap())).collect();
        r.push(vec![forward as f64, back as f64]);
        r
    };
    let math = grads(SdpaPath::Math);
    let fused = grads(SdpaPath::Auto);
    assert_eq!(fused[3][0], 1.0, "the fused forward ran");
    // The composed backward (the math path's forward and backward), not the 4 fused kernels.
    assert!(fused[3][1] > 4.0, "{} backward dispatches", fused[3][1]);
    for (what, (a, b)) in ["dq", "dk", "dv"].iter().zip(fused.iter().zip(&math)) {
        let worst = a
            .iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs() / (1.0 + y.abs()))
            .fold(0.0, f64::max);
        assert!(
            a.len() == b.len() && worst <= 1e-4,
            "{what}: worst {worst:e}"
        );
    }
}
