// nanoGPT's GPT (the shape of borch_nn::models::Gpt and tests/trajectories/char_gpt.py) written
// with borch-ts's modules, and a character-level corpus prepared as nanoGPT's shakespeare_char
// prepares one. Used by gpt.mjs (the example page) and by tests/browser/pages/gpt_trajectory.mjs,
// which holds this code to torch's trajectory.

// The text's sorted distinct characters, every character as its index, and training windows.
export function charCorpus(text) {
  const chars = [...text];
  const vocab = [...new Set(chars)].sort((a, b) => a.codePointAt(0) - b.codePointAt(0));
  const index = new Map(vocab.map((ch, i) => [ch, i]));
  const data = chars.map((ch) => index.get(ch));
  return {
    vocab,
    data,
    // torch.randint(len(data) - T, (batch,)).tolist() from the default generator.
    offsets: async (borch, batch, T) => (await borch.randint(0, data.length - T, [batch]).toArray()).map(Number),
    // The inputs (shift 0) or targets (shift 1) at `offsets`: a (offsets.length, T) int64 tensor.
    window: (borch, offsets, T, shift) => borch.tensor(BigInt64Array.from(offsets.flatMap((i) => data.slice(i + shift, i + shift + T)), BigInt)).reshape([offsets.length, T]),
    decode: (ids) => ids.map((i) => vocab[i]).join(''),
  };
}

// nanoGPT's GPT with torch's default init per module, built in nanoGPT's order (after
// manualSeed(s) its parameters are torch's), its parameters under torch's names.
export function buildGpt(borch, c, vocabSize) {
  const { nn } = borch;
  const d = c.n_embd;
  const named = [];
  const add = (prefix, m) => {
    for (const [n, p] of m.namedParameters()) named.push([`${prefix}.${n}`, p]);
    return m;
  };
  const wte = add('transformer.wte', new nn.Embedding(vocabSize, d));
  const wpe = add('transformer.wpe', new nn.Embedding(c.block_size, d));
  const blocks = [];
  for (let i = 0; i < c.n_layer; i++) {
    const p = `transformer.h.${i}`;
    blocks.push({
      ln1: add(`${p}.ln_1`, new nn.LayerNorm([d])),
      cAttn: add(`${p}.attn.c_attn`, new nn.Linear(d, 3 * d)),
      attnProj: add(`${p}.attn.c_proj`, new nn.Linear(d, d)),
      ln2: add(`${p}.ln_2`, new nn.LayerNorm([d])),
      cFc: add(`${p}.mlp.c_fc`, new nn.Linear(d, 4 * d)),
      gelu: new nn.GELU(),
      mlpProj: add(`${p}.mlp.c_proj`, new nn.Linear(4 * d, d)),
    });
  }
  const lnF = add('transformer.ln_f', new nn.LayerNorm([d]));
  const lmHead = add('lm_head', new nn.Linear(d, vocabSize, { bias: false }));
  const h = c.n_head;
  const attention = (b, x) => {
    const [B, T] = x.shape;
    const heads = (u) => u.reshape([B, T, h, d / h]).transpose(1, 2);
    const [q, k, v] = b.cAttn.call(x).split(d, 2).map(heads);
    const y = nn.functional.scaledDotProductAttention(q, k, v, { isCausal: true });
    return b.attnProj.call(y.transpose(1, 2).contiguous().reshape([B, T, d]));
  };
  // (B, T) int64 token ids to (B, T, vocabSize) logits.
  const forward = (idx) => {
    const T = idx.shape[1];
    let x = wte.call(idx).add(wpe.call(borch.arange(0, T)));
    for (const b of blocks) {
      x = x.add(attention(b, b.ln1.call(x)));
      x = x.add(b.mlpProj.call(b.gelu.call(b.cFc.call(b.ln2.call(x)))));
    }
    return lmHead.call(lnF.call(x));
  };
  const loss = (x, y) => nn.functional.crossEntropy(forward(x).reshape([-1, vocabSize]), y.reshape([-1]));
  return { named, parameters: named.map(([, p]) => p), forward, loss };
}
