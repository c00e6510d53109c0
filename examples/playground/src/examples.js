// The playground's examples: each is one program written twice, against borch-ts (JavaScript)
// and borch_webgpu (Python, torch's API), kept as plain files in ../examples/ and bundled as
// text. `checks` is what the browser test (tests/browser/playground.mjs) requires of a run:
// `prints` (substrings of the output), `losses` (a regular expression whose group 1 is a loss:
// the last must be below the first), `accuracy` (least held-out accuracy in %, read from a
// `held-out accuracy N%` line), `plotted` (plot() calls).

import tensorsJs from '../examples/tensors.mjs?raw';
import tensorsPy from '../examples/tensors.py?raw';
import autogradJs from '../examples/autograd.mjs?raw';
import autogradPy from '../examples/autograd.py?raw';
import linearJs from '../examples/linear_regression.mjs?raw';
import linearPy from '../examples/linear_regression.py?raw';
import mlpJs from '../examples/mlp_digits.mjs?raw';
import mlpPy from '../examples/mlp_digits.py?raw';
import cnnJs from '../examples/cnn_digits.mjs?raw';
import cnnPy from '../examples/cnn_digits.py?raw';
import catalogueJs from '../examples/catalogue.mjs?raw';
import cataloguePy from '../examples/catalogue.py?raw';

export const examples = [
  { id: 'tensors', title: 'Tensors', js: tensorsJs, py: tensorsPy, checks: { prints: ['tensor([[1., 2., 3.],'] } },
  { id: 'autograd', title: 'Autograd', js: autogradJs, py: autogradPy, checks: { prints: ['tensor([2., 4., 6.])'] } },
  { id: 'linear_regression', title: 'Linear regression', js: linearJs, py: linearPy, checks: { losses: '^step +\\d+ loss ([\\d.e+-]+)$', plotted: 101 } },
  { id: 'mlp_digits', title: 'MLP on digits', js: mlpJs, py: mlpPy, checks: { losses: '^epoch \\d+ loss ([\\d.]+)$', accuracy: 90, plotted: 115 } },
  { id: 'catalogue', title: 'Model catalogue', js: catalogueJs, py: cataloguePy, checks: { prints: ['digits_cnn: loaded and verified from the', 'accuracy on all 1797 digits'] } },
  { id: 'cnn_digits', title: 'CNN on digits (BatchNorm)', js: cnnJs, py: cnnPy, checks: { losses: '^epoch \\d+ loss ([\\d.]+)$', accuracy: 90, plotted: 46 } },
];
