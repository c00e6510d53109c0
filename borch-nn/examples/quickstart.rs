use borch_autograd::Backward;
use borch_nn::{Linear, Module, Tanh, functional as F, sequential};
use borch_optim::{Adam, AdamOptions, Optimizer};

fn main() -> borch_tensor::Result<()> {
    borch_tensor::manual_seed(0);
    let x = borch_tensor::randn(&[256, 2], None)?;
    let y = x.square()?.sum(Some(&[1]), true)?; // f(x) = x₀² + x₁²
    let model = sequential![Linear::new(2, 32)?, Tanh::new(), Linear::new(32, 1)?];
    let mut opt = Adam::new(model.parameters(), AdamOptions::new(0.05))?;
    let mut losses = vec![];
    for step in 0..=100 {
        opt.zero_grad(true)?;
        let loss = F::mse_loss(&model.forward(&x)?, &y, F::Reduction::Mean)?;
        loss.backward()?;
        opt.step()?;
        losses.push(loss.item_blocking()?.to_f64());
        if step % 25 == 0 {
            println!("step {step}: loss {:.4}", losses[step]);
        }
    }
    assert!(losses[100] < losses[0] / 10.0, "the loss falls");
    Ok(())
}
