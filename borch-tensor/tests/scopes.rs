//! Memory scopes: release at the end, reuse through the pool, keep / keep_alive, nesting, and the
//! error on use after release. One #[test] runs the checks in sequence, because `memory()` and
//! `pooled()` count the whole device and other threads' tensors would move them.

use borch_tensor::{
    BorchError, DType, ErrorKind, Scope, Tensor, default_device, keep_alive, scope, zeros,
};

/// A shape no other check allocates, so pool counts are this check's own.
fn odd(n: usize) -> [usize; 2] {
    [3, 1000 + n]
}

fn released_buffers_return_to_the_pool_and_are_reused() {
    let dev = default_device().unwrap();
    dev.synchronize().unwrap();
    let before = dev.memory();
    let pooled = dev.pooled();
    let mut held = Vec::new();
    scope(|_| {
        let a = zeros(&odd(1), DType::Float32)?;
        let b = a.add(1.0)?;
        let c = Tensor::new([1.0f32, 2.0])?;
        held.extend([a, b, c]);
        assert_eq!(dev.memory().buffers, before.buffers + 3);
        Ok(())
    })
    .unwrap();
    assert_eq!(
        dev.memory(),
        before,
        "the scope released its tensors although handles to them remain"
    );
    assert_eq!(dev.pooled().buffers, pooled.buffers + 3);
    assert!(held.iter().all(Tensor::is_released));
    let again = zeros(&odd(1), DType::Float32).unwrap();
    assert_eq!(
        dev.pooled().buffers,
        pooled.buffers + 2,
        "a new tensor of the same size reuses a released buffer"
    );
    assert_eq!(again.to_vec_blocking::<f32>().unwrap(), vec![0.0; 3 * 1001]);
    drop(held);
    assert_eq!(dev.memory().buffers, before.buffers + 1);
}

fn assert_released<T: std::fmt::Debug>(r: borch_tensor::Result<T>, what: &str) {
    match r {
        Err(e @ BorchError::Released(_)) => {
            assert_eq!(e.kind(), ErrorKind::Released);
            let msg = e.to_string();
            for part in [
                "released at the end of its scope",
                "keep()",
                "keep_alive(&t)",
            ] {
                assert!(msg.contains(part), "{what}: {msg:?} lacks {part:?}");
            }
        }
        other => panic!("{what}: expected a Released error, got {other:?}"),
    }
}

fn using_a_released_tensor_is_an_error_that_says_how_to_keep_it() {
    let x = Tensor::new([[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]).unwrap();
    let gone = scope(|_| x.mul(2.0)).unwrap();
    assert!(gone.is_released());
    assert_eq!(gone.shape(), &[2, 3], "metadata stays readable");
    assert_released(gone.to_vec_blocking::<f32>(), "readback");
    let msg = gone.exp().unwrap_err().to_string();
    assert!(
        msg.starts_with("a tensor of shape [2, 3] (float32) was used after"),
        "{msg}"
    );
    assert_released(gone.exp(), "unary op");
    assert_released(x.add(&gone), "as the second operand");
    assert_released(gone.fill_(1.0), "in-place write");
    assert_released(x.copy_(&gone).map(|_| ()), "copy source");
    assert_released(gone.sum(None, false), "reduction");
    assert_released(gone.to_dtype(DType::Int64), "cast");
    // Views share the released storage: making one is metadata, using it is the error.
    let view = gone.t().unwrap();
    assert!(view.is_released());
    let msg = view.contiguous().unwrap_err().to_string();
    assert!(msg.contains("released at the end of its scope"), "{msg}");
    assert_released(
        gone.reshape(&[3, 2]).unwrap().neg(),
        "op on a reshaped view",
    );
    // The tensor it was computed from was made outside the scope and is untouched.
    assert_eq!(
        x.sum(None, false)
            .unwrap()
            .item_blocking()
            .unwrap()
            .to_f64(),
        21.0
    );
}

fn keep_hands_a_tensor_to_the_enclosing_scope() {
    let dev = default_device().unwrap();
    let before = dev.memory();
    let x = Tensor::new([1.0f32, 2.0, 3.0]).unwrap();
    let (kept, dropped) = scope(|s| {
        let t = x.mul(10.0)?;
        let u = t.add(1.0)?;
        Ok((s.keep(&u), t))
    })
    .unwrap();
    assert!(!kept.is_released() && dropped.is_released());
    assert_eq!(
        kept.to_vec_blocking::<f32>().unwrap(),
        vec![11.0, 21.0, 31.0]
    );
    // At top level a kept tensor belongs to no scope: a later scope does not release it.
    scope(|_| kept.add(1.0).map(drop)).unwrap();
    assert!(!kept.is_released());
    drop((kept, dropped, x));
    assert_eq!(
        dev.memory(),
        before,
        "dropping the last handles frees the rest"
    );
}

fn keep_alive_exempts_from_every_scope() {
    let param = scope(|_| {
        scope(|_| {
            let p = zeros(&[2, 3], DType::Float32)?;
            Ok(keep_alive(&p))
        })
    })
    .unwrap();
    assert!(param.is_kept_alive() && !param.is_released());
    // Keeping it again, or handing it out, changes nothing.
    scope(|s| {
        s.keep(&param);
        param.fill_(2.0)
    })
    .unwrap();
    assert!(param.is_kept_alive());
    assert_eq!(param.to_vec_blocking::<f32>().unwrap(), vec![2.0; 6]);
}

fn scopes_nest() {
    let x = Tensor::new([1.0f32, 2.0]).unwrap();
    let mut inner_temp = None;
    let mut inner_kept = None;
    let outer_kept = scope(|outer| {
        let a = x.add(1.0)?;
        let c = scope(|inner| {
            inner_temp = Some(x.add(2.0)?);
            let c = inner.keep(&x.add(3.0)?);
            // The outer scope's tensor is not the inner one's to release.
            inner.keep(&a);
            Ok(c)
        })?;
        assert!(inner_temp.as_ref().unwrap().is_released());
        assert!(!a.is_released() && !c.is_released());
        inner_kept = Some(c.clone());
        assert_eq!(c.to_vec_blocking::<f32>()?, vec![4.0, 5.0]);
        Ok(outer.keep(&a.add(&c)?))
    })
    .unwrap();
    assert!(
        inner_kept.unwrap().is_released(),
        "kept to the outer scope, released by it"
    );
    assert_eq!(outer_kept.to_vec_blocking::<f32>().unwrap(), vec![6.0, 8.0]);
    assert!(!x.is_released(), "made outside every scope");
}

fn an_outer_scope_can_keep_what_an_inner_one_made() {
    let kept = scope(|outer| {
        scope(|_| {
            let t = Tensor::new([7.0f32])?;
            // `outer` owns nothing made in the inner scope until it ends; keeping through the
            // outer handle hands the tensor past the outer scope.
            Ok(outer.keep(&t))
        })
    })
    .unwrap();
    assert_eq!(kept.to_vec_blocking::<f32>().unwrap(), vec![7.0]);
}

fn views_of_outside_tensors_survive_and_errors_still_release() {
    let x = Tensor::new([[1.0f32, 2.0], [3.0, 4.0]]).unwrap();
    let view = scope(|_| x.t()).unwrap();
    assert!(
        !view.is_released(),
        "a view made inside shares a storage made outside"
    );
    let mut temp = None;
    let r: borch_tensor::Result<()> = scope(|_| {
        temp = Some(x.exp()?);
        x.reshape(&[5]).map(drop)
    });
    assert!(r.is_err());
    assert!(temp.unwrap().is_released(), "an error ends the scope too");
}

fn owned_scopes_for_bindings() {
    let x = Tensor::new([1.0f32]).unwrap();
    let outer = Scope::enter();
    let a = x.add(1.0).unwrap();
    let inner = Scope::enter();
    let b = x.add(2.0).unwrap();
    // Ending the outer scope first also ends the inner one.
    outer.exit();
    assert!(a.is_released() && b.is_released());
    let c = x.add(3.0).unwrap();
    inner.exit();
    assert!(!c.is_released(), "made after both scopes ended");
}

fn a_long_scope_releases_what_it_made_early() {
    let dev = default_device().unwrap();
    let before = dev.memory();
    let x = Tensor::new([1.0f32]).unwrap();
    let (early, late) = scope(|_| {
        let early = x.add(1.0)?;
        // Enough short-lived tensors that the scope drops its dead entries along the way.
        for _ in 0..2500 {
            x.add(2.0)?;
        }
        Ok((early, x.add(3.0)?))
    })
    .unwrap();
    assert!(early.is_released() && late.is_released());
    drop((x, early, late));
    assert_eq!(dev.memory(), before);
}

#[test]
fn memory_scopes() {
    released_buffers_return_to_the_pool_and_are_reused();
    using_a_released_tensor_is_an_error_that_says_how_to_keep_it();
    keep_hands_a_tensor_to_the_enclosing_scope();
    keep_alive_exempts_from_every_scope();
    scopes_nest();
    an_outer_scope_can_keep_what_an_inner_one_made();
    views_of_outside_tensors_survive_and_errors_still_release();
    owned_scopes_for_bindings();
    a_long_scope_releases_what_it_made_early();
}
