// The core half of tests/node/hostile.mjs, in the wasm32 build where `usize` is 32 bits (issue
// 9): element counts that wrapped, creators that trapped on a capacity overflow, deferred GPU
// index errors blamed on the next innocent read, and training misuse torch refuses. Each case is
// [what, fn, class, kind, message]; a RegExp message is for the adapter's own buffer limit.

const tooLarge = (bytes) => new RegExp(`^a buffer of ${bytes} bytes exceeds this adapter's limit of \\d+ bytes per buffer$`);
const DEFERRED = (op) => ` (raised by ${op}(); index errors are found on the GPU and reported at the next read)`;

export function coreCases(torch) {
  const { BorchError, nn, optim } = torch;
  const leaf = () => torch.zeros([3], { requiresGrad: true });
  return [
    ['ones([65536, 65537]).sum().item()', () => torch.ones([65536, 65537]).sum().item(), BorchError, 'DeviceError',
      tooLarge(65536 * 65537 * 4)],
    ['ones([65536, 65536]).numel()', () => torch.ones([65536, 65536]).numel(), BorchError, 'DeviceError',
      tooLarge(65536 * 65536 * 4)],
    ['ones([1, 1]).expand(2**31 - 1, 2**31 - 1)', () => torch.ones([1, 1]).expand(2 ** 31 - 1, 2 ** 31 - 1), BorchError,
      'NotImplementedError',
      "expand: a tensor of shape [2147483647, 2147483647] would have 4611686014132420609 elements; borch's tensors hold " +
        'at most 2147483647 elements (its kernels index with 32-bit integers)'],
    ['ones([1, 1]).tile([65536, 65537])', () => torch.ones([1, 1]).tile([65536, 65537]), BorchError, 'DeviceError',
      tooLarge(65536 * 65537 * 4)],
    ['zeros(1e6, 1e6)', () => torch.zeros(1e6, 1e6), BorchError, 'DeviceError', tooLarge(4e12)],
    ['arange(0, 1e12)', () => torch.arange(0, 1e12), BorchError, 'DeviceError', tooLarge(4e12)],
    ['randperm(2**31)', () => torch.randperm(2 ** 31), BorchError, 'RuntimeError',
      "randperm(): argument 'n' (position 1) is 2147483648, out of the range borch takes for sizes, dims and indices " +
        '(at most 2147483647 in absolute value: a tensor holds at most that many elements)'],
    ['eye(1e6)', () => torch.eye(1e6), BorchError, 'DeviceError', tooLarge(4e12)],
    ['eye(65536)', () => torch.eye(65536), BorchError, 'DeviceError', tooLarge(65536 * 65536 * 4)],
    ['rand([1e6, 1e6])', () => torch.rand([1e6, 1e6]), BorchError, 'DeviceError', tooLarge(4e12)],
    ['oneHot(-1 class), then an innocent read', async () => {
      torch.tensor([-1], { dtype: 'int64' }).oneHot(3);
      await torch.tensor([1, 2]).toArray();
    }, BorchError, 'RuntimeError', `Class values must be non-negative.${DEFERRED('one_hot')}`],
    ['indexSelect out of range, then an innocent read', async () => {
      torch.ones([2, 2]).indexSelect(0, torch.tensor([5], { dtype: 'int64' }));
      await torch.tensor([1, 2]).toArray();
    }, RangeError, 'IndexError', `index out of range in self${DEFERRED('index_select')}`],
    ['w.grad = zeros([4]) on a [3] tensor', () => {
      leaf().grad = torch.zeros([4]);
    }, BorchError, 'RuntimeError',
      "attempting to assign a gradient of size '[4]' to a tensor of size '[3]'. Please ensure that the gradient and the " +
        'tensor are the same size'],
    ['w.grad = an int64 tensor', () => {
      leaf().grad = torch.zeros([3], { dtype: 'int64' });
    }, BorchError, 'RuntimeError',
      "attempting to assign a gradient with dtype 'long int' to a tensor with grad_dtype 'Float'. The gradient must " +
        "match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute " +
        'with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a ' +
        'tensor and its gradient may break downstream systems that assume they match.'],
    ['new optim.SGD([w.mul(2)])', () => new optim.SGD([leaf().mul(2)], { lr: 0.1 }), BorchError, 'ValueError',
      "can't optimize a non-leaf Tensor"],
    ['backward() of a loss its scope released', async () => {
      const model = new nn.Linear(3, 1);
      const loss = await torch.scope(() => model.call(torch.ones([2, 3])).sum());
      loss.backward();
    }, BorchError, 'ReleasedError', /^a tensor of shape \[\] \(float32\) was used after it was released at the end of its scope/],
  ];
}
