//! A leaf's `.grad` lives as long as the leaf when backward runs inside a memory scope, while
//! the graph recorded inside the scope is released with it.

use borch_autograd::Backward;
use borch_tensor::{BorchError, Result, Tensor, keep_alive, scope};

fn leaf() -> Result<Tensor> {
    let t = Tensor::new([1.0f32, 2.0, 3.0])?;
    t.set_requires_grad(true)?;
    Ok(t)
}

fn loss_of(t: &Tensor) -> Result<Tensor> {
    t.square()?.sum(None, false)
}

#[test]
fn grad_of_a_kept_alive_leaf_is_kept_alive() {
    let p = keep_alive(&leaf().unwrap());
    scope(|_| loss_of(&p)?.backward()).unwrap();
    let g = p.grad().unwrap();
    assert!(g.is_kept_alive());
    assert_eq!(g.to_vec_blocking::<f32>().unwrap(), vec![2.0, 4.0, 6.0]);
    // Accumulating in a later scope reads the old grad and keeps the sum.
    scope(|_| loss_of(&p)?.backward()).unwrap();
    assert_eq!(
        p.grad().unwrap().to_vec_blocking::<f32>().unwrap(),
        vec![4.0, 8.0, 12.0]
    );
}

#[test]
fn grad_of_an_unscoped_leaf_outlives_the_scope() {
    let p = leaf().unwrap();
    scope(|_| loss_of(&p)?.backward()).unwrap();
    let g = p.grad().unwrap();
    assert!(!g.is_released() && !g.is_kept_alive());
    assert_eq!(g.to_vec_blocking::<f32>().unwrap(), vec![2.0, 4.0, 6.0]);
}

#[test]
fn grad_follows_its_leaf_into_the_enclosing_scope() {
    let (p, g) = scope(|_| {
        let p = leaf()?;
        scope(|_| loss_of(&p)?.backward())?;
        let g = p.grad().expect("grad set");
        assert!(!g.is_released(), "alive while the leaf's scope is open");
        Ok((p, g))
    })
    .unwrap();
    assert!(
        p.is_released() && g.is_released(),
        "released with the leaf's scope"
    );
}

#[test]
fn a_graph_kept_past_its_scope_cannot_run_backward() {
    let p = keep_alive(&leaf().unwrap());
    let loss = scope(|s| Ok(s.keep(&p.exp()?.sum(None, false)?))).unwrap();
    assert!(!loss.is_released());
    // exp's derivative reads exp's output, which lived only in the scope.
    let err = loss.backward().unwrap_err();
    assert!(matches!(err, BorchError::Released(_)), "{err}");
    assert!(err.to_string().contains("released at the end of its scope"));
}
