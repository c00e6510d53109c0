//! The random transforms, drawing from torch's generator as torchvision does: `torch.rand(1) < p`
//! for the flips, `torch.randint(0, h - th + 1, size=(1,))` for a crop's corner, and
//! `RandomResizedCrop.get_params`' ten tries of `torch.empty(1).uniform_(...)`.

use borch_tensor::random::draws;
use borch_tensor::{Generator, HostData, Result, Tensor};

use super::geometry::{crop, hflip, pad, pad_sides, resize, vflip};
use super::{Transform, dimensions, setup_size};

/// `torch.rand(1, generator=g) < p` (the comparison in float32, as torch makes it).
fn coin(p: f64, generator: Option<&Generator>) -> Result<bool> {
    Ok(draws::uniform(0.0, 1.0, 1, generator)?[0] < p as f32)
}

/// `torch.randint(0, high, size=(1,), generator=g).item()`.
fn randint(high: usize, generator: Option<&Generator>) -> Result<usize> {
    Ok(draws::randint(0, high as i64, 1, generator)?[0] as usize)
}

/// `RandomHorizontalFlip(p=0.5)`.
#[derive(Debug, Clone)]
pub struct RandomHorizontalFlip {
    p: f64,
    generator: Option<Generator>,
}

impl RandomHorizontalFlip {
    /// `RandomHorizontalFlip(p)`: flips with probability `p`, drawing from the default generator.
    pub fn new(p: f64) -> RandomHorizontalFlip {
        RandomHorizontalFlip { p, generator: None }
    }

    /// Draws from `generator` instead of the default one.
    pub fn generator(mut self, generator: Generator) -> RandomHorizontalFlip {
        self.generator = Some(generator);
        self
    }
}

impl Transform for RandomHorizontalFlip {
    fn forward(&self, img: &Tensor) -> Result<Tensor> {
        if coin(self.p, self.generator.as_ref())? {
            hflip(img)
        } else {
            Ok(img.clone())
        }
    }

    fn batches(&self) -> bool {
        true
    }

    fn draws(&self) -> bool {
        true
    }

    fn forward_batch(&self, batch: &Tensor) -> Result<Tensor> {
        flip_batch(batch, self.p, self.generator.as_ref(), hflip)
    }
}

/// `RandomVerticalFlip(p=0.5)`.
#[derive(Debug, Clone)]
pub struct RandomVerticalFlip {
    p: f64,
    generator: Option<Generator>,
}

impl RandomVerticalFlip {
    /// `RandomVerticalFlip(p)`: flips with probability `p`, drawing from the default generator.
    pub fn new(p: f64) -> RandomVerticalFlip {
        RandomVerticalFlip { p, generator: None }
    }

    /// Draws from `generator` instead of the default one.
    pub fn generator(mut self, generator: Generator) -> RandomVerticalFlip {
        self.generator = Some(generator);
        self
    }
}

impl Transform for RandomVerticalFlip {
    fn forward(&self, img: &Tensor) -> Result<Tensor> {
        if coin(self.p, self.generator.as_ref())? {
            vflip(img)
        } else {
            Ok(img.clone())
        }
    }

    fn batches(&self) -> bool {
        true
    }

    fn draws(&self) -> bool {
        true
    }

    fn forward_batch(&self, batch: &Tensor) -> Result<Tensor> {
        flip_batch(batch, self.p, self.generator.as_ref(), vflip)
    }
}

/// `RandomCrop(size, padding=None, pad_if_needed=False, fill=0, padding_mode='constant')`.
#[derive(Debug, Clone)]
pub struct RandomCrop {
    size: Vec<usize>,
    padding: Option<Vec<usize>>,
    pad_if_needed: bool,
    fill: f64,
    padding_mode: String,
    generator: Option<Generator>,
}

impl RandomCrop {
    /// `RandomCrop(size)`: one value for a square, or `(h, w)`.
    pub fn new(size: &[usize]) -> RandomCrop {
        RandomCrop {
            size: size.to_vec(),
            padding: None,
            pad_if_needed: false,
            fill: 0.0,
            padding_mode: "constant".into(),
            generator: None,
        }
    }

    /// `padding=`: one, two or four values, as `pad`.
    pub fn padding(mut self, padding: &[usize]) -> RandomCrop {
        self.padding = Some(padding.to_vec());
        self
    }

    /// `pad_if_needed=`: pad an image smaller than the crop up to its size.
    pub fn pad_if_needed(mut self, pad_if_needed: bool) -> RandomCrop {
        self.pad_if_needed = pad_if_needed;
        self
    }

    /// `fill=`: the constant mode's value.
    pub fn fill(mut self, fill: f64) -> RandomCrop {
        self.fill = fill;
        self
    }

    /// `padding_mode=`: `constant`, `edge`, `reflect` or `symmetric`.
    pub fn padding_mode(mut self, mode: &str) -> RandomCrop {
        self.padding_mode = mode.into();
        self
    }

    /// Draws from `generator` instead of the default one.
    pub fn generator(mut self, generator: Generator) -> RandomCrop {
        self.generator = Some(generator);
        self
    }

    /// `RandomCrop.get_params(img, output_size)`: `(top, left, height, width)`.
    pub fn get_params(
        img: &Tensor,
        output_size: [usize; 2],
        generator: Option<&Generator>,
    ) -> Result<[usize; 4]> {
        let (_, h, w) = dimensions(img)?;
        corner(h, w, output_size, generator)
    }
}

/// `RandomCrop.get_params` for an image of `h × w`.
fn corner(
    h: usize,
    w: usize,
    output_size: [usize; 2],
    generator: Option<&Generator>,
) -> Result<[usize; 4]> {
    let [th, tw] = output_size;
    if h < th || w < tw {
        return Err(borch_tensor::BorchError::Value(format!(
            "Required crop size ({th}, {tw}) is larger than input image size ({h}, {w})"
        )));
    }
    if w == tw && h == th {
        return Ok([0, 0, h, w]);
    }
    let i = randint(h - th + 1, generator)?;
    let j = randint(w - tw + 1, generator)?;
    Ok([i, j, th, tw])
}

impl Transform for RandomCrop {
    fn forward(&self, img: &Tensor) -> Result<Tensor> {
        let size = setup_size(
            &self.size,
            "Please provide only two dimensions (h, w) for size.",
        )?;
        let mut img = img.clone();
        if let Some(p) = &self.padding {
            img = pad(&img, p, self.fill, &self.padding_mode)?;
        }
        img = self.pad_if_needed_to(&img, size)?;
        let [i, j, th, tw] = RandomCrop::get_params(&img, size, self.generator.as_ref())?;
        crop(&img, i, j, th, tw)
    }

    fn batches(&self) -> bool {
        true
    }

    fn draws(&self) -> bool {
        true
    }

    /// One corner drawn per image in order and every crop gathered in one `index_select`; a
    /// constant padding is folded into the gather (positions outside the image read `fill`),
    /// the other modes pad the whole batch first.
    fn forward_batch(&self, batch: &Tensor) -> Result<Tensor> {
        let [n, c, h, w] = batch_dims(batch)?;
        let size = setup_size(
            &self.size,
            "Please provide only two dimensions (h, w) for size.",
        )?;
        if self.padding_mode != "constant" {
            let mut img = batch.clone();
            if let Some(p) = &self.padding {
                img = pad(&img, p, self.fill, &self.padding_mode)?;
            }
            return self.crop_batch(&img, size);
        }
        let [l, t, r, b] = match &self.padding {
            Some(p) => pad_sides(p)?,
            None => [0; 4],
        };
        let (mut left, mut top) = (l, t);
        let (mut ph, mut pw) = (h + t + b, w + l + r);
        if self.pad_if_needed && pw < size[1] {
            left += size[1] - pw;
            pw += 2 * (size[1] - pw);
        }
        if self.pad_if_needed && ph < size[0] {
            top += size[0] - ph;
            ph += 2 * (size[0] - ph);
        }
        let fill = Tensor::from_host(&HostData::F32(vec![self.fill as f32]), &[1])?;
        let flat = borch_tensor::cat(&[batch.contiguous()?.reshape(&[-1])?, fill], 0)?;
        let outside = (n * c * h * w) as i64;
        let mut index = Vec::with_capacity(n * c * size[0] * size[1]);
        for image in 0..n {
            let [i, j, th, tw] = corner(ph, pw, size, self.generator.as_ref())?;
            for ch in 0..c {
                for y in (i..i + th).map(|y| y as isize - top as isize) {
                    index.extend((j..j + tw).map(|x| x as isize - left as isize).map(|x| {
                        if (0..h as isize).contains(&y) && (0..w as isize).contains(&x) {
                            (((image * c + ch) * h) as isize + y) as i64 * w as i64 + x as i64
                        } else {
                            outside
                        }
                    }));
                }
            }
        }
        gather(&flat, index, &[n, c, size[0], size[1]])
    }
}

impl RandomCrop {
    /// `pad_if_needed=True`: an image narrower or shorter than `size` padded up to it.
    fn pad_if_needed_to(&self, img: &Tensor, size: [usize; 2]) -> Result<Tensor> {
        let mut img = img.clone();
        let (_, h, w) = dimensions(&img)?;
        if self.pad_if_needed && w < size[1] {
            img = pad(&img, &[size[1] - w, 0], self.fill, &self.padding_mode)?;
        }
        if self.pad_if_needed && h < size[0] {
            img = pad(&img, &[0, size[0] - h], self.fill, &self.padding_mode)?;
        }
        Ok(img)
    }

    /// `forward`'s `pad_if_needed` and crop for each image of a batch already padded.
    fn crop_batch(&self, img: &Tensor, size: [usize; 2]) -> Result<Tensor> {
        let img = self.pad_if_needed_to(img, size)?;
        let [n, c, h, w] = batch_dims(&img)?;
        let mut index = Vec::with_capacity(n * c * size[0] * size[1]);
        for image in 0..n {
            let [i, j, th, tw] = corner(h, w, size, self.generator.as_ref())?;
            for ch in 0..c {
                for y in 0..th {
                    let row = ((image * c + ch) * h + i + y) * w + j;
                    index.extend((row..row + tw).map(|v| v as i64));
                }
            }
        }
        gather(&img, index, &[n, c, size[0], size[1]])
    }
}

/// `RandomResizedCrop(size, scale=(0.08, 1.0), ratio=(3/4, 4/3), interpolation=BILINEAR,
/// antialias=True)`: a random box of the given area fraction and aspect ratio, resized to `size`.
#[derive(Debug, Clone)]
pub struct RandomResizedCrop {
    size: Vec<usize>,
    scale: (f64, f64),
    ratio: (f64, f64),
    interpolation: String,
    antialias: bool,
    generator: Option<Generator>,
}

impl RandomResizedCrop {
    /// `RandomResizedCrop(size)` with torchvision's defaults.
    pub fn new(size: &[usize]) -> RandomResizedCrop {
        RandomResizedCrop {
            size: size.to_vec(),
            scale: (0.08, 1.0),
            ratio: (3.0 / 4.0, 4.0 / 3.0),
            interpolation: "bilinear".into(),
            antialias: true,
            generator: None,
        }
    }

    /// `scale=`: the range of the box's area as a fraction of the image's.
    pub fn scale(mut self, lo: f64, hi: f64) -> RandomResizedCrop {
        self.scale = (lo, hi);
        self
    }

    /// `ratio=`: the range of the box's aspect ratio (width / height).
    pub fn ratio(mut self, lo: f64, hi: f64) -> RandomResizedCrop {
        self.ratio = (lo, hi);
        self
    }

    /// `interpolation=`, as `Resize`.
    pub fn interpolation(mut self, mode: &str) -> RandomResizedCrop {
        self.interpolation = mode.into();
        self
    }

    /// `antialias=`, as `Resize`.
    pub fn antialias(mut self, antialias: bool) -> RandomResizedCrop {
        self.antialias = antialias;
        self
    }

    /// Draws from `generator` instead of the default one.
    pub fn generator(mut self, generator: Generator) -> RandomResizedCrop {
        self.generator = Some(generator);
        self
    }

    /// `RandomResizedCrop.get_params(img, scale, ratio)`: `(top, left, height, width)`.
    pub fn get_params(
        img: &Tensor,
        scale: (f64, f64),
        ratio: (f64, f64),
        generator: Option<&Generator>,
    ) -> Result<[usize; 4]> {
        let (_, height, width) = dimensions(img)?;
        let area = (height * width) as f64;
        // torch.log(torch.tensor(ratio)): float32
        let log_ratio = ((ratio.0 as f32).ln() as f64, (ratio.1 as f32).ln() as f64);
        for _ in 0..10 {
            let target_area = area * draws::uniform(scale.0, scale.1, 1, generator)?[0] as f64;
            let u = draws::uniform(log_ratio.0, log_ratio.1, 1, generator)?[0];
            let aspect_ratio = u.exp() as f64;
            let w = (target_area * aspect_ratio).sqrt().round_ties_even();
            let h = (target_area / aspect_ratio).sqrt().round_ties_even();
            if 0.0 < w && w <= width as f64 && 0.0 < h && h <= height as f64 {
                let (w, h) = (w as usize, h as usize);
                let i = randint(height - h + 1, generator)?;
                let j = randint(width - w + 1, generator)?;
                return Ok([i, j, h, w]);
            }
        }
        // the central crop fallback
        let in_ratio = width as f64 / height as f64;
        let (lo, hi) = (ratio.0.min(ratio.1), ratio.0.max(ratio.1));
        let (w, h) = if in_ratio < lo {
            (width, (width as f64 / lo).round_ties_even() as usize)
        } else if in_ratio > hi {
            ((height as f64 * hi).round_ties_even() as usize, height)
        } else {
            (width, height)
        };
        Ok([(height - h) / 2, (width - w) / 2, h, w])
    }
}

impl Transform for RandomResizedCrop {
    fn forward(&self, img: &Tensor) -> Result<Tensor> {
        let size = setup_size(
            &self.size,
            "Please provide only two dimensions (h, w) for size.",
        )?;
        let [i, j, h, w] =
            RandomResizedCrop::get_params(img, self.scale, self.ratio, self.generator.as_ref())?;
        let boxed = crop(img, i, j, h, w)?;
        resize(&boxed, &size, &self.interpolation, None, self.antialias)
    }
}

/// `(N, C, H, W)` of a batch, or torchvision's error for anything else.
fn batch_dims(batch: &Tensor) -> Result<[usize; 4]> {
    match *batch.shape() {
        [n, c, h, w] => Ok([n, c, h, w]),
        ref s => Err(borch_tensor::BorchError::Value(format!(
            "a batched transform takes an (N, C, H, W) batch, got a tensor of shape {s:?}"
        ))),
    }
}

/// The elements of `img` at the flat `index` (row-major), shaped `shape`: one upload and one
/// `index_select`.
fn gather(img: &Tensor, index: Vec<i64>, shape: &[usize]) -> Result<Tensor> {
    let len = index.len();
    let index = Tensor::from_host(&HostData::I64(index), &[len])?;
    let dims: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
    img.contiguous()?
        .reshape(&[-1])?
        .index_select(0, &index)?
        .reshape(&dims)
}

/// A flip's coin drawn per image in order, then each image taken from the batch or its flip.
fn flip_batch(
    batch: &Tensor,
    p: f64,
    generator: Option<&Generator>,
    flip: fn(&Tensor) -> Result<Tensor>,
) -> Result<Tensor> {
    let [n, ..] = batch_dims(batch)?;
    let mut pick = Vec::with_capacity(n);
    for b in 0..n {
        pick.push(if coin(p, generator)? { n + b } else { b } as i64);
    }
    if pick.iter().all(|&i| (i as usize) < n) {
        return Ok(batch.clone());
    }
    let both = borch_tensor::cat(&[batch.clone(), flip(batch)?], 0)?;
    both.index_select(0, &Tensor::from_host(&HostData::I64(pick), &[n])?)
}
