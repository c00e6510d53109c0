//! `vision.models.<name>` for every model of borch-vision's catalog
//! (`borch_vision::models::catalog`, listed by `borch_js::vision_models`), generated: one frozen
//! object whose members each make one call into `buildModel` (the core binds the keywords to the
//! model's torchvision signature and builds it), exported as `vision`, and their `.d.ts`
//! declarations (torchvision's builders take keywords only: one options object); and
//! `vision.catalogue` (build_js/catalogue.js and catalogue.d.ts).

use std::fmt::Write;

use super::{camel, types};

const OPEN: &str = "const vision_models = Object.freeze({";
const CLOSE: &str = "});";
const EXPORT: &str = "export const vision = Object.freeze({ models: vision_models, transforms: vision_transforms, datasets: vision_datasets, catalogue });";
/// `vision.datasets`: borch-vision's readers from bytes, one forwarding call each.
const DATASETS: &str = "const vision_datasets = Object.freeze({
  CIFAR10: Object.freeze({ fromBytes: function (batches, options) { return classes.VisionDataset.cifar10FromBytes(batches, options); } }),
  CIFAR100: Object.freeze({ fromBytes: function (bytes, options) { return classes.VisionDataset.cifar100FromBytes(bytes, options); } }),
  MNIST: Object.freeze({ fromBytes: function (images, labels, options) { return classes.VisionDataset.mnistFromBytes(images, labels, options); } }),
  FashionMNIST: Object.freeze({ fromBytes: function (images, labels, options) { return classes.VisionDataset.fashionMnistFromBytes(images, labels, options); } }),
  Digits: Object.freeze({ fromBytes: function (bytes, options) { return classes.VisionDataset.digitsFromBytes(bytes, options); } }),
});";
/// `vision.transforms`: the catalog's transforms by name, then the hand-written three.
const TRANSFORMS_OPEN: &str = "const vision_transforms = Object.freeze({";
const TRANSFORMS_CLOSE: &str = "  ToTensor: function () { return wasm.toTensorTransform(); },
  PILToTensor: function () { return wasm.pilToTensorTransform(); },
  Compose: function (transforms) { return wasm.composeTransforms(transforms); },
});";

fn member(name: &str) -> String {
    format!(
        "  {}: function (...args) {{ return buildModel({name:?}, args); }},",
        camel(name)
    )
}

fn transform_member(name: &str) -> String {
    format!("  {name}: function (...args) {{ return wasm.newTransform({name:?}, args); }},")
}

/// The generated JavaScript.
pub fn objects_js() -> String {
    let mut out = format!(
        "\n// vision.models generated from borch_vision::models::catalog; do not edit.\n{OPEN}\n"
    );
    for m in borch_js::vision_models() {
        writeln!(out, "{}", member(m.name)).unwrap();
    }
    out += CLOSE;
    writeln!(
        out,
        "\n// vision.transforms generated from borch_vision::transforms::catalog; do not edit.\n{TRANSFORMS_OPEN}"
    )
    .unwrap();
    for t in borch_js::vision_transforms() {
        writeln!(out, "{}", transform_member(t.name)).unwrap();
    }
    out + TRANSFORMS_CLOSE + "\n" + DATASETS + "\n" + EXPORT + "\n"
}

/// The declarations: `export interface VisionModels { resnet18(options?: { … }): Module; }`.
pub fn declarations() -> String {
    let mut out = String::from(
        "\n/** torchvision.models (generated from borch_vision::models::catalog). */\n\
         export interface VisionModels {\n",
    );
    for m in borch_js::vision_models() {
        let forms = types::constructor_forms(m.params());
        let options = forms
            .last()
            .map(|f| f.replacen("options: {", "options?: {", 1))
            .unwrap_or_default();
        writeln!(
            out,
            "  /** torchvision.models.{}({}) */",
            m.name, m.signature
        )
        .unwrap();
        writeln!(
            out,
            "  {}({options}): import('./borch_js.js').Module;",
            camel(m.name)
        )
        .unwrap();
    }
    out += "}\n\n/** torchvision.transforms (generated from borch_vision::transforms::catalog). */\nexport interface VisionTransforms {\n";
    for t in borch_js::vision_transforms() {
        writeln!(
            out,
            "  /** torchvision.transforms.{}({}) */\n  {}(...args: unknown[]): import('./borch_js.js').Transform;",
            t.name, t.signature, t.name
        )
        .unwrap();
    }
    out += "  /** ToTensor(): forward(ImageData | Uint8Array, [h, w, c]) -> CHW float32 / 255 */\n  ToTensor(): import('./borch_js.js').Transform;\n";
    out += "  /** PILToTensor(): the values kept (int64: borch has no uint8) */\n  PILToTensor(): import('./borch_js.js').Transform;\n";
    out += "  Compose(transforms: import('./borch_js.js').Transform[]): import('./borch_js.js').Transform;\n}\n";
    out + CATALOGUE_D_TS + DECLARE
}

/// The declarations of `vision.catalogue` (its hand-written JavaScript is
/// build_js/catalogue.js).
const CATALOGUE_D_TS: &str = include_str!("../build_js/catalogue.d.ts");
const DECLARE: &str = "/** vision.datasets: readers from bytes (`CIFAR10.fromBytes([batch, ...], { train, transform })`). */
export interface VisionDatasets {
  readonly CIFAR10: { fromBytes(batches: Uint8Array[], options?: { train?: boolean; transform?: import('./borch_js.js').Transform; download?: boolean }): import('./borch_js.js').VisionDataset };
  readonly CIFAR100: { fromBytes(bytes: Uint8Array, options?: { train?: boolean; transform?: import('./borch_js.js').Transform; download?: boolean }): import('./borch_js.js').VisionDataset };
  readonly MNIST: { fromBytes(images: Uint8Array, labels: Uint8Array, options?: { train?: boolean; transform?: import('./borch_js.js').Transform; download?: boolean }): import('./borch_js.js').VisionDataset };
  readonly FashionMNIST: { fromBytes(images: Uint8Array, labels: Uint8Array, options?: { train?: boolean; transform?: import('./borch_js.js').Transform; download?: boolean }): import('./borch_js.js').VisionDataset };
  readonly Digits: { fromBytes(bytes: Uint8Array, options?: { train?: boolean; transform?: import('./borch_js.js').Transform; download?: boolean }): import('./borch_js.js').VisionDataset };
}
export declare const vision: { readonly models: VisionModels; readonly transforms: VisionTransforms; readonly datasets: VisionDatasets; readonly catalogue: Catalogue };\n";

/// `vision.catalogue`: the browser's part of the catalogue loader (fetch, Cache API) over the
/// core's checks (`catalogueManifest`, `catalogueLoadFrom`), defined before `vision`.
pub fn catalogue_js() -> &'static str {
    include_str!("../build_js/catalogue.js")
}

/// Lines of the generated JavaScript that are not a forwarding line (for the audit).
pub fn audit_generated() -> Vec<crate::audit::Finding> {
    let mut members: Vec<String> = borch_js::vision_models()
        .iter()
        .map(|m| member(m.name))
        .collect();
    members.extend(
        borch_js::vision_transforms()
            .iter()
            .map(|t| transform_member(t.name)),
    );
    // The hand-written three forward one call each.
    members.extend(TRANSFORMS_CLOSE.lines().map(String::from));
    members.extend(DATASETS.lines().map(String::from));
    objects_js()
        .lines()
        .filter(|line| {
            !(line.is_empty()
                || line.starts_with("// ")
                || [OPEN, CLOSE, EXPORT, TRANSFORMS_OPEN].contains(line)
                || members.iter().any(|m| m == line))
        })
        .map(|line| crate::audit::Finding {
            place: "generated index.js (vision)".into(),
            what: format!("not a forwarding line: {line}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_is_one_forwarding_line_and_a_declaration() {
        let js = objects_js();
        assert!(js.contains(
            "  resnet18: function (...args) { return buildModel(\"resnet18\", args); },"
        ));
        assert!(js.contains(
            "  cifarResnet18: function (...args) { return buildModel(\"cifar_resnet18\", args); },"
        ));
        let d = declarations();
        assert!(
            d.contains("  resnet50(options?: { weights?: string; "),
            "{d}"
        );
        assert!(d.contains("numClasses?: number"), "{d}");
        assert!(!d.contains(": any"));
        assert!(
            d.contains("readonly catalogue: Catalogue")
                && d.contains("export interface CatalogueEntry")
        );
        assert!(js.contains(EXPORT));
        assert!(catalogue_js().contains("const catalogue = Object.freeze({"));
        assert!(audit_generated().is_empty());
    }
}
