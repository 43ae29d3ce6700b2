"""opgen.testing, the checks every generated suite runs, on ops whose fake
is wrong on purpose: a failure must say which op, which output, which sample
and sizes, what the fake said against what the kernel returned, and the spec
line of the fake rule. The ops are Python custom ops (no build needed).
"""

import pytest
import torch

from opgen import testing
from opgen.testing import Case


@torch.library.custom_op("opgen_testing_test::double_rows", mutates_args=())
def double_rows(x: torch.Tensor) -> torch.Tensor:
    return torch.cat([x, x])


@double_rows.register_fake
def _(x):
    return x.new_empty(x.shape)  # forgets the doubling


@torch.library.custom_op("opgen_testing_test::stats", mutates_args=())
def stats(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x.clone(), x.sum(-1, dtype=torch.float64)


@stats.register_fake
def _(x):
    return torch.empty_like(x), x.new_empty(x.shape[:-1])  # float32, where the kernel gives float64


@torch.library.custom_op("opgen_testing_test::split", mutates_args=())
def split(x: torch.Tensor) -> list[torch.Tensor]:
    return [t.clone() for t in x.unbind(0)]


@split.register_fake
def _(x):
    return [x.new_empty(x.shape[1:])]  # one tensor, whatever the input's first size


def make(d):
    return (torch.randn(d["N"], 3),), {}


def failure(case):
    with pytest.raises(pytest.fail.Exception) as raised:
        testing.check_fake_matches_real(case)
    return str(raised.value)


def test_a_wrong_shape_names_the_op_output_sample_sizes_and_rule():
    case = Case(torch.ops.opgen_testing_test.double_rows.default, "opgen_testing_test::double_rows", make,
                [{"N": 2}], fakes=["schemas/double_rows.yaml:7:5: like(x)"], name="double_rows-0")
    assert failure(case) == (
        "opgen_testing_test::double_rows, output 0 (double_rows-0, sizes {'N': 2}): the fake and the kernel "
        "disagree on the shape: the fake says (2, 3), the kernel returns (4, 3)\n"
        "  the fake: schemas/double_rows.yaml:7:5: like(x)")


def test_a_wrong_dtype_names_the_second_output_and_its_rule():
    case = Case(torch.ops.opgen_testing_test.stats.default, "opgen_testing_test::stats", make, [{"N": 4}],
                fakes=["schemas/stats.yaml:9:5: like(x)", "schemas/stats.yaml:10:5: empty(x.shape[:-1])"],
                name="stats-0")
    assert failure(case) == (
        "opgen_testing_test::stats, output 1 (stats-0, sizes {'N': 4}): the fake and the kernel disagree on the "
        "dtype: the fake says torch.float32, the kernel returns torch.float64\n"
        "  the fake: schemas/stats.yaml:10:5: empty(x.shape[:-1])")


def test_a_list_output_of_the_wrong_length_says_so():
    case = Case(torch.ops.opgen_testing_test.split.default, "opgen_testing_test::split", make, [{"N": 3}],
                fakes=["schemas/split.yaml:6:5: like_each(...)"], name="split-0")
    assert failure(case) == (
        "opgen_testing_test::split, output 0 (split-0, sizes {'N': 3}): the fake returns 1 tensors, the kernel 3\n"
        "  the fake: schemas/split.yaml:6:5: like_each(...)")


def test_a_right_fake_passes():
    @torch.library.custom_op("opgen_testing_test::twice", mutates_args=())
    def twice(x: torch.Tensor) -> torch.Tensor:
        return 2 * x

    twice.register_fake(lambda x: torch.empty_like(x))
    testing.check_fake_matches_real(Case(torch.ops.opgen_testing_test.twice.default, "opgen_testing_test::twice",
                                         make, [{"N": 2}, {"N": 5}], fakes=["like(x)"]))


def test_a_suite_for_another_contract_is_refused_on_import():
    testing.require_contract(testing.CONTRACT)
    with pytest.raises(ImportError, match="generated for opgen.testing contract 0"):
        testing.require_contract(0)


@torch.library.custom_op("opgen_testing_test::nonzero_rows", mutates_args=())
def nonzero_rows(x: torch.Tensor) -> torch.Tensor:
    return x[x.sum(-1) != 0].clone()


@nonzero_rows.register_fake
def _(x):
    n = torch.library.get_ctx().new_dynamic_size(min=0)
    return x.new_empty((n, x.shape[1]))


def test_a_data_dependent_size_matches_any_real_size():
    def make_with_zeros(d):
        x = torch.randn(d["N"], 3)
        x[::2] = 0
        return (x,), {}

    testing.check_fake_matches_real(Case(torch.ops.opgen_testing_test.nonzero_rows.default,
                                         "opgen_testing_test::nonzero_rows", make_with_zeros, [{"N": 4}, {"N": 7}],
                                         fakes=["like(x)"]))


# Autocast and FLOP counts: a rule that is registered passes, one that is not
# (or counts wrong) fails with the op, the sample and both sides named.

@torch.library.custom_op("opgen_testing_test::halve", mutates_args=())
def halve(x: torch.Tensor) -> torch.Tensor:
    return x * 0.5


@halve.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("opgen_testing_test::halve_cast", mutates_args=())
def halve_cast(x: torch.Tensor) -> torch.Tensor:
    return x * 0.5


@halve_cast.register_fake
def _(x):
    return torch.empty_like(x)


halve_cast.register_autocast("cpu", torch.float32)


@torch.utils.flop_counter.register_flop_formula(torch.ops.opgen_testing_test.halve_cast, get_raw=True)
def _(x, **_counter):
    return x.numel()


def halve_case(op, name):
    return Case(op, f"opgen_testing_test::{name}", make, [{"N": 2}, {"N": 5}], name=f"{name}-0")


def test_autocast_passes_where_the_rule_is_registered():
    testing.check_autocast(halve_case(torch.ops.opgen_testing_test.halve_cast.default, "halve_cast"), "cpu",
                           torch.float32)


def test_autocast_without_a_registration_names_the_dtypes_the_kernel_saw():
    with pytest.raises(AssertionError) as raised:
        testing.check_autocast(halve_case(torch.ops.opgen_testing_test.halve.default, "halve"), "cpu", torch.float32)
    assert str(raised.value).startswith(
        "opgen_testing_test::halve (halve-0, sizes {'N': 2}) under torch.autocast('cpu'): the kernel was called with "
        "dtypes [[torch.bfloat16]], expected one call with [torch.float32]")


def test_flops_pass_where_the_formula_counts_what_the_rule_gives():
    testing.check_flops(halve_case(torch.ops.opgen_testing_test.halve_cast.default, "halve_cast"), [6, 15])


def test_flops_that_disagree_with_the_rule_name_both_counts():
    with pytest.raises(AssertionError) as raised:
        testing.check_flops(halve_case(torch.ops.opgen_testing_test.halve_cast.default, "halve_cast"), [12, 30])
    assert str(raised.value).startswith(
        "opgen_testing_test::halve_cast (halve_cast-0, sizes {'N': 2}): FlopCounterMode counted 6 FLOPs, the spec's "
        "flops rule gives 12")


def test_flops_without_a_formula_count_zero_and_fail():
    with pytest.raises(AssertionError, match="FlopCounterMode counted 0 FLOPs, the spec's flops rule gives 6"):
        testing.check_flops(halve_case(torch.ops.opgen_testing_test.halve.default, "halve"), [6, 15])


@torch.library.custom_op("opgen_testing_test::scale_rows", mutates_args=())
def scale_rows(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x * w.unsqueeze(-1)


@scale_rows.register_fake
def _(x, w):
    return torch.empty_like(x)


def scale_rows_case(sizes):
    def make(d):
        return (torch.randn(d["N"], 3), torch.randn(d["N"])), {}
    return Case(torch.ops.opgen_testing_test.scale_rows.default, "opgen_testing_test::scale_rows", make, sizes,
                name="scale_rows-0")


def recompile_failure(case):
    with pytest.raises(AssertionError) as raised:
        testing.check_compile(case, dynamic=True)
    return str(raised.value).splitlines()[0]


def test_a_recompile_caused_by_duck_sizing_is_blamed_on_it():
    """N = 3 equals x's other dimension at the first call: one symbol for both, and N = 5 tells them apart
    (it was blamed on 0/1 specialization, which no size here has)."""
    message = recompile_failure(scale_rows_case([{"N": 3}, {"N": 5}]))
    assert "x.shape[0] and x.shape[1] are both 3 at the first sizes" in message
    assert "duck sizing" in message and "0 or 1" not in message


def test_a_recompile_caused_by_a_size_of_one_is_blamed_on_specialization():
    message = recompile_failure(scale_rows_case([{"N": 1}, {"N": 5}]))
    assert "x.shape[0] is 1 at the first sizes, and torch.compile specializes a size of 0 or 1" in message


def test_sizes_that_equal_nothing_compile_once():
    testing.check_compile(scale_rows_case([{"N": 4}, {"N": 6}]), dynamic=True)
