"""``torch.nn.init``: the initialisers that are one core op each, in place and outside autograd
as torch's are (``uniform_`` -> ``Tensor.uniform_``, ``normal_``, ``constant_`` -> ``fill_``,
``zeros_``, ``ones_``). The ones that compute fans and gains (``xavier_*``, ``kaiming_*``,
``calculate_gain``) are the core's ``borch_nn::init``, which borch-ts does not bind yet: asking
for one raises AttributeError saying so."""

from .._grad import no_grad

BOUND = "uniform_, normal_, constant_, zeros_ and ones_"


def uniform_(tensor, a=0.0, b=1.0):
    with no_grad():
        tensor.uniform_(a, b)
    return tensor


def normal_(tensor, mean=0.0, std=1.0):
    with no_grad():
        tensor.normal_(mean, std)
    return tensor


def constant_(tensor, val):
    with no_grad():
        tensor.fill_(val)
    return tensor


def zeros_(tensor):
    with no_grad():
        tensor.zero_()
    return tensor


def ones_(tensor):
    with no_grad():
        tensor.fill_(1.0)
    return tensor


def __getattr__(name):
    raise AttributeError(
        f"module '{__name__}' has no attribute '{name}' — borch-ts binds {BOUND} "
        "(borch_nn::init's other initialisers are not bound yet)"
    )
