// The bundled digits (data/digits/digits.csv.gz: 1,797 rows of 64 pixels 0–16 and a label),
// fetched from this origin and gunzipped by the browser, pixels scaled to [0, 1].

export async function fetchDigits(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const stream = (await response.blob()).stream().pipeThrough(new DecompressionStream('gzip'));
  const rows = (await new Response(stream).text()).split('\n').filter((l) => l.trim() !== '');
  const pixels = new Float32Array(rows.length * 64);
  const labels = new Int32Array(rows.length);
  rows.forEach((row, i) => {
    const values = row.split(',').map(Number);
    for (let j = 0; j < 64; j++) pixels[i * 64 + j] = values[j] / 16;
    labels[i] = values[64];
  });
  return { pixels, labels, n: rows.length };
}
