//! Element counts never wrap (issue 9): shapes near 2^31 and 2^32 elements are counted in 64-bit
//! checked arithmetic; a view is refused above `MAX_NUMEL`, a new tensor above the adapter's
//! buffer limit, each naming the real size, before anything is allocated. Nothing here allocates
//! more than a few bytes.

use borch_tensor::api::{self, Value};
use borch_tensor::size::{MAX_NUMEL, exact_numel, view_numel};
use borch_tensor::{
    BorchError, DType, Device, ErrorKind, Tensor, arange, default_device, empty, eye, linspace,
    ones, rand, randperm, zeros,
};
use proptest::prelude::*;

/// The tests of this binary run one at a time, so `memory()` counts only the running one.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn dev() -> Device {
    default_device().unwrap()
}

fn refused(r: borch_tensor::Result<Tensor>) -> BorchError {
    r.expect_err("must be refused")
}

/// The bytes a refused allocation names, from borch's DeviceError.
fn requested(e: &BorchError) -> u64 {
    match e {
        BorchError::Device(borch_device::DeviceError::BufferTooLarge { requested, .. }) => {
            *requested
        }
        other => panic!("expected a BufferTooLarge device error, got {other:?}"),
    }
}

fn int_list(v: &[i64]) -> Value {
    Value::List(v.iter().map(|&x| Value::Int(x)).collect())
}

fn call(name: &str, method: bool, args: Vec<Value>) -> borch_tensor::Result<Value> {
    api::call(name, method, args, vec![])
}

#[test]
fn the_issue_reproducers_are_refused_with_the_real_size() {
    let _g = serial();
    let before = dev().memory();
    // ones([65536, 65537]).sum() gave 65536 on wasm32; [65536, 65536] had numel 0.
    for shape in [[65536usize, 65537], [65536, 65536]] {
        let e = refused(ones(&shape, DType::Float32));
        assert_eq!(e.kind(), ErrorKind::Device);
        assert_eq!(requested(&e), shape[0] as u64 * shape[1] as u64 * 4, "{e}");
    }
    // torch.zeros(1e6, 1e6) quoted a wrapped byte count (1476395008).
    let e = refused(zeros(&[1_000_000, 1_000_000], DType::Float32));
    assert!(e.to_string().contains("4000000000000 bytes"), "{e}");
    // expand(2**31 - 1, 2**31 - 1) had numel 1.
    let x = ones(&[1, 1], DType::Float32).unwrap();
    let e = refused(x.expand(&[i32::MAX as isize, i32::MAX as isize]));
    assert_eq!(e.kind(), ErrorKind::NotImplemented);
    assert!(
        e.to_string().contains("4611686014132420609 elements"),
        "{e}"
    );
    let e = refused(x.tile(&[65536, 65537]));
    assert_eq!(requested(&e), 65536 * 65537 * 4, "{e}");
    // Host-side creators check before allocating on the host.
    let e = refused(arange(0.0, 1e12, 1.0));
    assert_eq!(requested(&e), 4_000_000_000_000, "{e}");
    assert!(
        refused(randperm(1 << 31, None))
            .to_string()
            .contains("bytes")
    );
    assert!(refused(eye(1_000_000, None)).to_string().contains("bytes"));
    assert_eq!(requested(&refused(eye(65536, None))), 65536 * 65536 * 4);
    assert_eq!(
        requested(&refused(rand(&[1_000_000, 1_000_000], None))),
        4_000_000_000_000
    );
    assert!(
        refused(linspace(0.0, 1.0, 1 << 31))
            .to_string()
            .contains("bytes")
    );
    assert!(
        refused(empty(&[usize::MAX, 2], DType::Bool))
            .to_string()
            .contains("overflowed")
    );
    // Nothing was allocated for any of them.
    assert_eq!(dev().memory().buffers, before.buffers + 1, "only x is live");
    drop(x);
    // The instance still computes.
    let y = Tensor::new([1.0f32, 2.0]).unwrap().add(1.0).unwrap();
    assert_eq!(y.to_vec_blocking::<f32>().unwrap(), [2.0, 3.0]);
}

#[test]
fn the_binder_refuses_ints_no_tensor_could_need() {
    let _g = serial();
    // 2**32 + 2 truncated to 2 on wasm32 before.
    let e = call("zeros", false, vec![int_list(&[(1 << 32) + 2])]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    assert!(
        e.to_string()
            .starts_with("zeros(): argument 'size' (position 1) is 4294967298"),
        "{e}"
    );
    let t = Tensor::new([1.0f32, 2.0]).unwrap();
    let e = call(
        "view",
        true,
        vec![Value::Tensor(t.clone()), Value::Int(1 << 40)],
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("is 1099511627776, out of the range"),
        "{e}"
    );
    let e = call(
        "sum",
        true,
        vec![Value::Tensor(t.clone()), Value::Int(-(1 << 33))],
    )
    .unwrap_err();
    assert!(e.to_string().contains("-8589934592"), "{e}");
    // Slices saturate instead: t[0:2**40] is all of t, as in torch.
    let all = call(
        "index",
        true,
        vec![
            Value::Tensor(t.clone()),
            Value::List(vec![Value::List(vec![
                Value::Int(0),
                Value::Int(1 << 40),
                Value::None,
            ])]),
        ],
    );
    match all {
        Ok(Value::Tensor(all)) => assert_eq!(all.shape(), &[2]),
        other => panic!("t[0:2**40] gave {:?}", other.map(|_| ()).err()),
    }
    // ones(65536, 65537) through the catalog: the device's error with the real size.
    let e = call("ones", false, vec![Value::Int(65536), Value::Int(65537)]).unwrap_err();
    assert_eq!(requested(&e), 65536 * 65537 * 4);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Counting is exact and never wraps, for shapes around 2^31 and 2^32 elements.
    #[test]
    fn counts_near_two_to_the_31_and_32_are_exact(
        a in (1usize << 14)..(1usize << 17),
        b in (1usize << 14)..(1usize << 17),
        c in 1usize..4,
    ) {
        let _g = serial();
        let shape = [a, b, c];
        let exact = a as u128 * b as u128 * c as u128;
        prop_assert_eq!(exact_numel(&shape), exact);
        match view_numel("test", &shape) {
            Ok(n) => {
                prop_assert!(exact <= u128::from(MAX_NUMEL));
                prop_assert_eq!(n as u128, exact);
            }
            Err(e) => {
                prop_assert!(exact > u128::from(MAX_NUMEL));
                let want = format!("{} elements", exact);
                prop_assert!(e.to_string().contains(&want));
            }
        }
    }

    /// An expanded view (no allocation) has exactly the elements it says, or is refused.
    #[test]
    fn expanded_views_count_every_element(
        a in (1isize << 14)..(1isize << 17),
        b in (1isize << 14)..(1isize << 17),
    ) {
        let _g = serial();
        let x = ones(&[1, 1], DType::Float32).unwrap();
        let exact = a as u128 * b as u128;
        match x.expand(&[a, b]) {
            Ok(v) => {
                prop_assert!(exact <= u128::from(MAX_NUMEL));
                prop_assert_eq!(v.numel() as u128, exact);
                prop_assert_eq!(v.shape(), &[a as usize, b as usize][..]);
            }
            Err(e) => {
                prop_assert!(exact > u128::from(MAX_NUMEL));
                prop_assert_eq!(e.kind(), ErrorKind::NotImplemented);
            }
        }
    }

    /// A new tensor too large for one buffer is refused naming its real byte count.
    #[test]
    fn new_tensors_name_their_real_size(
        a in (1usize << 15)..(1usize << 17),
        b in (1usize << 15)..(1usize << 17),
    ) {
        let _g = serial();
        let e = zeros(&[a, b], DType::Float32).unwrap_err();
        prop_assert_eq!(requested(&e), a as u64 * b as u64 * 4);
    }

    /// view() of a shape whose product wraps in 32 bits is refused, never accepted.
    #[test]
    fn views_whose_product_wraps_are_refused(k in 0usize..8) {
        let _g = serial();
        let x = ones(&[1 << k], DType::Float32).unwrap();
        // (2^16 + 1) * 2^16 * 2^k ≡ 2^k (mod 2^32): a wrapped product would equal numel.
        let shape = [65537isize, 65536, 1 << k];
        let e = x.view(&shape).unwrap_err();
        prop_assert!(e.to_string().contains("is invalid for input of size"));
    }
}
