//! The deterministic geometric transforms and torchvision's tensor functionals under them:
//! `pad`, `crop`, `center_crop`, `resize`, `hflip`, `vflip` — views (`narrow`, `flip`),
//! borch-nn's `F.pad` (one gather per padded dim) and `F.interpolate`.

use borch_nn::functional as F;
use borch_tensor::{BorchError, HostData, Result, Tensor};

use super::{Transform, dimensions, setup_size};

fn value<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Value(msg.into()))
}

/// torchvision's `F.hflip`: the last dim reversed.
pub fn hflip(img: &Tensor) -> Result<Tensor> {
    dimensions(img)?;
    img.flip(&[-1])
}

/// torchvision's `F.vflip`: the second-to-last dim reversed.
pub fn vflip(img: &Tensor) -> Result<Tensor> {
    dimensions(img)?;
    img.flip(&[-2])
}

/// torchvision's `F.crop(img, top, left, height, width)` for a box inside the image (a view).
pub fn crop(img: &Tensor, top: usize, left: usize, height: usize, width: usize) -> Result<Tensor> {
    let (_, h, w) = dimensions(img)?;
    if top + height > h || left + width > w {
        return value(format!(
            "crop box (top={top}, left={left}, height={height}, width={width}) is outside the \
             image of size ({h}, {w}); pad first"
        ));
    }
    img.narrow(-2, top as isize, height)?
        .narrow(-1, left as isize, width)
}

/// Source indices of torchvision's `symmetric` padding (the edge pixel repeated) along one dim.
fn symmetric_indices(n: usize, before: usize, after: usize) -> Result<Vec<i64>> {
    if before > n || after > n {
        return Err(BorchError::Index(format!(
            "symmetric padding of ({before}, {after}) is larger than the dimension of size {n}"
        )));
    }
    let n = n as i64;
    let mut idx: Vec<i64> = (0..before as i64).rev().collect();
    idx.extend(0..n);
    idx.extend((0..after as i64).map(|i| n - 1 - i));
    Ok(idx)
}

/// `(left, top, right, bottom)` of `pad`'s one, two or four values.
pub(crate) fn pad_sides(padding: &[usize]) -> Result<[usize; 4]> {
    match *padding {
        [p] => Ok([p, p, p, p]),
        [x, y] => Ok([x, y, x, y]),
        [l, t, r, b] => Ok([l, t, r, b]),
        _ => value(format!(
            "Padding must be an int or a 1, 2, or 4 element tuple, not a {} element tuple",
            padding.len()
        )),
    }
}

/// torchvision's `F.pad(img, padding, fill=0, padding_mode='constant')`: `padding` is one value
/// (all sides), two (left/right, top/bottom) or four (left, top, right, bottom); modes
/// `constant` (with `fill`), `edge`, `reflect`, `symmetric`.
pub fn pad(img: &Tensor, padding: &[usize], fill: f64, padding_mode: &str) -> Result<Tensor> {
    dimensions(img)?;
    let [l, t, r, b] = pad_sides(padding)?;
    let p = [l as isize, r as isize, t as isize, b as isize];
    match padding_mode {
        "constant" => F::pad(img, &p, "constant", Some(fill)),
        "edge" => F::pad(img, &p, "replicate", None),
        "reflect" => F::pad(img, &p, "reflect", None),
        "symmetric" => {
            let s = img.shape();
            let (h, w) = (s[s.len() - 2], s[s.len() - 1]);
            let index = |v: Vec<i64>| {
                let n = v.len();
                Tensor::from_host(&HostData::I64(v), &[n])
            };
            let x = img.index_select(-1, &index(symmetric_indices(w, l, r)?)?)?;
            x.index_select(-2, &index(symmetric_indices(h, t, b)?)?)
        }
        _ => value("Padding mode should be either constant, edge, reflect or symmetric"),
    }
}

/// torchvision's `F.center_crop(img, output_size)`: zero padding first when the crop is larger.
pub fn center_crop(img: &Tensor, output_size: [usize; 2]) -> Result<Tensor> {
    let (_, mut ih, mut iw) = dimensions(img)?;
    let [ch, cw] = output_size;
    let mut img = img.clone();
    if cw > iw || ch > ih {
        let half = |c: usize, i: usize, up: usize| if c > i { (c - i + up) / 2 } else { 0 };
        let ltrb = [
            half(cw, iw, 0),
            half(ch, ih, 0),
            half(cw, iw, 1),
            half(ch, ih, 1),
        ];
        img = pad(&img, &ltrb, 0.0, "constant")?;
        (_, ih, iw) = dimensions(&img)?;
        if cw == iw && ch == ih {
            return Ok(img);
        }
    }
    // int(round((image_height - crop_height) / 2.0)), Python's round half to even
    let top = ((ih - ch) as f64 / 2.0).round_ties_even() as usize;
    let left = ((iw - cw) as f64 / 2.0).round_ties_even() as usize;
    crop(&img, top, left, ch, cw)
}

/// torch's antialiased bilinear weights along one dim (`_compute_indices_weights_aa`, align
/// corners off): a triangle filter widened by the scale, each row normalised; `[out, in]`.
fn aa_weights(input: usize, output: usize) -> Vec<f32> {
    let scale = input as f64 / output as f64;
    let (support, invscale) = if scale >= 1.0 {
        (scale, 1.0 / scale)
    } else {
        (1.0, 1.0)
    };
    let mut m = vec![0f32; output * input];
    for i in 0..output {
        let center = scale * (i as f64 + 0.5);
        let xmin = ((center - support + 0.5) as i64).max(0) as usize;
        let xmax = ((center + support + 0.5) as i64).min(input as i64) as usize;
        let w: Vec<f64> = (xmin..xmax)
            .map(|j| (1.0 - ((j as f64 - center + 0.5) * invscale).abs()).max(0.0))
            .collect();
        let total: f64 = w.iter().sum();
        for (k, wk) in w.iter().enumerate() {
            m[i * input + xmin + k] = if total != 0.0 {
                (wk / total) as f32
            } else {
                *wk as f32
            };
        }
    }
    m
}

/// `interpolate(..., mode='bilinear', antialias=True)` on `(..., H, W)`: `Wh @ img @ Ww^T`.
fn antialiased_bilinear(img: &Tensor, [h, w]: [usize; 2], [oh, ow]: [usize; 2]) -> Result<Tensor> {
    let wh = Tensor::from_host(&HostData::F32(aa_weights(h, oh)), &[oh, h])?;
    let ww = Tensor::from_host(&HostData::F32(aa_weights(w, ow)), &[ow, w])?;
    wh.matmul(img)?.matmul(&ww.transpose(0, 1)?)
}

/// torchvision's `_compute_resized_output_size`: `(new_h, new_w)`.
fn resized_output_size(
    h: usize,
    w: usize,
    size: &[usize],
    max_size: Option<usize>,
) -> Result<[usize; 2]> {
    match *size {
        [requested] => {
            let (short, long) = if w <= h { (w, h) } else { (h, w) };
            let (mut new_short, mut new_long) = (
                requested,
                ((requested * long) as f64 / short as f64) as usize,
            );
            if let Some(m) = max_size {
                if m <= requested {
                    return value(format!(
                        "max_size = {m} must be strictly greater than the requested size for the \
                         smaller edge size = [{requested}]"
                    ));
                }
                if new_long > m {
                    (new_short, new_long) =
                        (((m * new_short) as f64 / new_long as f64) as usize, m);
                }
            }
            Ok(if w <= h {
                [new_long, new_short]
            } else {
                [new_short, new_long]
            })
        }
        [h, w] => {
            if max_size.is_some() {
                return value(
                    "max_size should only be passed if size specifies the length of the smaller \
                     edge, i.e. size should be an int or a sequence of length 1 in torchscript \
                     mode.",
                );
            }
            Ok([h, w])
        }
        _ => value("If size is a sequence, it should have 1 or 2 values"),
    }
}

/// torchvision's `F.resize(img, size, interpolation='bilinear', max_size=None, antialias=True)`
/// on a tensor, through `F.interpolate` (`align_corners=False` for bilinear and bicubic).
/// `antialias=True` (torchvision's default) with bilinear is torch's antialiased kernel
/// (`_upsample_bilinear2d_aa`) as two matmuls with host-computed `[out, in]` weights; when no
/// edge shrinks it changes nothing and the plain kernel runs. Antialiased bicubic shrinking is
/// refused.
pub fn resize(
    img: &Tensor,
    size: &[usize],
    interpolation: &str,
    max_size: Option<usize>,
    antialias: bool,
) -> Result<Tensor> {
    let (_, h, w) = dimensions(img)?;
    let [oh, ow] = resized_output_size(h, w, size, max_size)?;
    if [oh, ow] == [h, w] {
        return Ok(img.clone());
    }
    let smooth = matches!(interpolation, "bilinear" | "bicubic");
    if !matches!(
        interpolation,
        "nearest" | "nearest-exact" | "bilinear" | "bicubic"
    ) {
        return value(format!(
            "Interpolation mode {interpolation} is not supported for tensors: nearest, \
             nearest-exact, bilinear or bicubic"
        ));
    }
    let shrinks = oh < h || ow < w;
    if antialias && interpolation == "bicubic" && shrinks {
        return Err(BorchError::NotImplemented(format!(
            "Resize with antialias=True and bicubic interpolation shrinking ({h}, {w}) to ({oh}, \
             {ow}) is not implemented in borch; pass antialias=False or use bilinear"
        )));
    }
    if antialias && interpolation == "bilinear" && shrinks {
        return antialiased_bilinear(img, [h, w], [oh, ow]);
    }
    let batched = img.dim() >= 4;
    let x = match img.dim() {
        2 => img.unsqueeze(0)?.unsqueeze(0)?,
        3 => img.unsqueeze(0)?,
        _ => img.reshape(&[
            -1,
            img.shape()[img.dim() - 3] as isize,
            h as isize,
            w as isize,
        ])?,
    };
    let align = if smooth { Some(false) } else { None };
    let y = F::interpolate(&x, Some(&[oh, ow]), None, interpolation, align, None, false)?;
    if batched {
        let mut shape: Vec<isize> = img.shape().iter().map(|&d| d as isize).collect();
        let n = shape.len();
        (shape[n - 2], shape[n - 1]) = (oh as isize, ow as isize);
        y.reshape(&shape)
    } else if img.dim() == 2 {
        y.squeeze_dims(&[0, 1])
    } else {
        y.squeeze_dims(&[0])
    }
}

/// `Resize(size, interpolation=BILINEAR, max_size=None, antialias=True)`: one size value resizes
/// the shorter edge to it (aspect ratio kept), two are `(h, w)`.
#[derive(Debug, Clone)]
pub struct Resize {
    size: Vec<usize>,
    interpolation: String,
    max_size: Option<usize>,
    antialias: bool,
}

impl Resize {
    /// `Resize(size)` with torchvision's defaults (bilinear, `antialias=True`).
    pub fn new(size: &[usize]) -> Resize {
        Resize {
            size: size.to_vec(),
            interpolation: "bilinear".into(),
            max_size: None,
            antialias: true,
        }
    }

    /// `interpolation=`: `nearest`, `nearest-exact`, `bilinear` or `bicubic`.
    pub fn interpolation(mut self, mode: &str) -> Resize {
        self.interpolation = mode.into();
        self
    }

    /// `max_size=`: the longer edge's bound when `size` is one value.
    pub fn max_size(mut self, max_size: usize) -> Resize {
        self.max_size = Some(max_size);
        self
    }

    /// `antialias=`.
    pub fn antialias(mut self, antialias: bool) -> Resize {
        self.antialias = antialias;
        self
    }
}

impl Transform for Resize {
    fn forward(&self, img: &Tensor) -> Result<Tensor> {
        resize(
            img,
            &self.size,
            &self.interpolation,
            self.max_size,
            self.antialias,
        )
    }
}

/// `CenterCrop(size)`: the centre `(h, w)` box, zero-padded when larger than the image.
#[derive(Debug, Clone)]
pub struct CenterCrop {
    size: Vec<usize>,
}

impl CenterCrop {
    /// `CenterCrop(size)`: one value for a square, or `(h, w)`.
    pub fn new(size: &[usize]) -> CenterCrop {
        CenterCrop {
            size: size.to_vec(),
        }
    }
}

impl Transform for CenterCrop {
    fn forward(&self, img: &Tensor) -> Result<Tensor> {
        let size = setup_size(
            &self.size,
            "Please provide only two dimensions (h, w) for size.",
        )?;
        center_crop(img, size)
    }
}
