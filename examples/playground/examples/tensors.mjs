// Tensors: creation, shape and dtype, subscripts, broadcasting, matmul, reductions, comparisons.
import * as torch from 'borch-ts';

await torch.init();
const x = torch.tensor([[1, 2, 3], [4, 5, 6]]);
console.log(await x.repr());
console.log(`shape [${x.shape.join(', ')}], dtype ${x.dtype}`);
console.log(await x.index([[1, null, null], [null, null, 2]]).repr()); // x[1:, ::2]
const y = torch.arange(6).view(2, 3);
console.log(await y.repr(), y.dtype);
console.log(await x.add(y.mul(2)).repr());
console.log(await x.matmul(x.t()).sum({ dim: 1 }).repr());
console.log(`mean ${(await x.mean().item()).toFixed(6)} std ${(await x.std().item()).toFixed(6)}`);
console.log(await x.gt(2.5).repr());
console.log(await torch.softmax(x, 1).repr());
