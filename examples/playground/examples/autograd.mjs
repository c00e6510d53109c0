// Autograd: requiresGrad, backward, .grad, and noGrad.
import * as torch from 'borch-ts';

await torch.init();
const x = torch.tensor([1, 2, 3]).requiresGrad_();
const y = x.mul(x).sum();
y.backward();
console.log('dy/dx =', await x.grad.repr()); // 2x
const w = torch.tensor([[0.5, -1, 2]]).requiresGrad_();
const z = torch.sigmoid(w.matmul(x.index([[null, null, null], null]))).sum(); // sigmoid(w @ x[:, None])
z.backward();
console.log('dz/dw =', await w.grad.repr());
console.log(`z = ${(await z.item()).toFixed(6)}`);
const q = torch.noGrad(() => x.mul(2));
console.log('requiresGrad under noGrad:', q.requiresGrad);
