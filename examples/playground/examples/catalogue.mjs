// A model from borch's catalogue: catalogue/digits_cnn.json names the architecture, the weights
// file with its sha256 and size, and a sample input with the output the model must give.
// vision.catalogue.load checks the size and the digest, builds the model, loads the weights and
// runs the sample before it returns; a second run reads the verified files from the Cache API.
import * as torch from 'borch-ts';
import { loadDigits } from 'playground';

await torch.init();
const entry = await torch.vision.catalogue.load('/catalogue/digits_cnn.json');
const { manifest, model, maxSampleDiff, source } = entry;
console.log(`${manifest.name}: loaded and verified from the ${source}, sample max |diff| ${maxSampleDiff.toExponential(2)} (tolerance ${manifest.sample.tolerance})`);
console.log(`weights ${manifest.weights.bytes} bytes, sha256 ${manifest.weights.sha256.slice(0, 16)}…, licence ${manifest.licence}`);
console.log(`trained by: ${manifest.provenance.command}`);
console.log(`${model}`);

const { X, y } = loadDigits();
const predicted = torch.noGrad(() => model.call(X).argmax(1));
const correct = await predicted.eq(y).sum().item();
console.log(`accuracy on all 1797 digits (1437 of them seen in training): ${((100 * correct) / 1797).toFixed(2)}%`);
console.log(`first ten predictions: ${(await predicted.narrow(0, 0, 10).toArray()).join(' ')}`);
