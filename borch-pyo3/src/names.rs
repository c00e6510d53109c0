//! borch-ts's names for the catalogs' torch names (`log_softmax` → `logSoftmax`), so that the
//! native objects answer what the Python layer asks borch-ts's for, by the rule xtask's generator
//! uses for borch-ts (`borch_tensor::api::camel`).

use std::collections::HashMap;
use std::sync::OnceLock;

use borch_tensor::api::Entry;

pub use borch_tensor::api::camel;

type Table = HashMap<String, &'static str>;

fn table(entries: &'static [Entry], keep: fn(&Entry) -> bool) -> Table {
    entries
        .iter()
        .filter(|e| keep(e))
        .map(|e| (camel(e.name), e.name))
        .collect()
}

/// The tensor method borch-ts calls `js` (`logSoftmax`): the catalog entry `api::call` finds for
/// its torch name, found once.
pub fn method(js: &str) -> Option<&'static Entry> {
    static T: OnceLock<HashMap<String, &'static Entry>> = OnceLock::new();
    T.get_or_init(|| {
        let entries = borch_tensor::api::entries();
        table(entries, Entry::is_method)
            .into_iter()
            .filter_map(|(js, name)| Some((js, borch_tensor::api::find_in(entries, name, true)?)))
            .collect()
    })
    .get(js)
    .copied()
}

/// torch's function namespaces beyond `torch` and `torch.nn.functional`, each a core catalog of
/// `Entry`s, by borch-ts's path (borch-js's `function_namespaces`): the module named in errors and
/// the entries.
pub fn namespace(path: &str) -> Option<(&'static str, &'static [Entry])> {
    Some(match path {
        "nn.utils" => (borch_nn::utils::MODULE, borch_nn::utils::entries()),
        "autograd" => (borch_autograd::api::MODULE, borch_autograd::api::entries()),
        "nn.Transformer" => (
            borch_nn::api::modules::statics::TRANSFORMER,
            borch_nn::api::modules::statics::transformer(),
        ),
        _ => return None,
    })
}

/// `(borch-ts name, torch name)` of the functions of a catalog: `torch` (borch_tensor::api),
/// `nn.functional` (borch_nn::api) or a [`namespace`].
pub fn functions(path: &str) -> Vec<(String, &'static str)> {
    let entries: &'static [Entry] = match path {
        "torch" => borch_tensor::api::entries(),
        "nn.functional" => borch_nn::api::entries(),
        other => namespace(other).map_or(&[], |(_, e)| e),
    };
    let mut out: Vec<_> = entries
        .iter()
        .filter(|e| path != "torch" || e.is_function())
        .map(|e| (camel(e.name), e.name))
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::camel;

    #[test]
    fn camel_case_as_borch_ts() {
        assert_eq!(camel("log_softmax"), "logSoftmax");
        assert_eq!(camel("requires_grad_"), "requiresGrad_");
        assert_eq!(camel("__setitem__"), "setitem");
        assert_eq!(camel("mT"), "mT");
    }
}
