import torch
torch.library.define("pyns::a", "(Tensor x) -> Tensor")
torch.library.define("pyns::b", "(Tensor x) -> Tensor")

def a_fake(x):
    return torch.empty_like(x)

def on_meta(x):
    return torch.empty(x.shape, device="meta")

def _setup():
    def impl_abstract(op_name, fn):
        torch.library.register_fake(op_name, fn)
    impl_abstract("pyns::a", a_fake)
    impl_abstract("pyns::b", on_meta)
    torch.library.register_fake("pyns::a", func=a_fake)
    torch.library.register_fake("pyns::b", func=)
    impl_abstract("pyns::c", lambda x: x)
    impl_abstract("pyns::d", elsewhere.fake)
    impl_abstract("pyns::e", a_fake, lib=None)
    impl_abstract("pyns::f", _)
_setup()
