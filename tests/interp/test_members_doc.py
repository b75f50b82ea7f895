"""docs/members.md is generated from the members' declarations (spec.reference):
it must say what the declarations say now."""

import pathlib

from quickening.interp import spec
from quickening.interp.families.registered import FAMILIES_IN_ORDER

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "members.md"


def test_members_doc_is_generated_from_the_declarations():
    fresh = spec.reference(FAMILIES_IN_ORDER)
    assert DOC.read_text() == fresh, (
        "docs/members.md is stale: run "
        "`python -m quickening.interp.families --reference > docs/members.md`")


def test_every_member_of_every_family_is_listed():
    text = DOC.read_text()
    for family in FAMILIES_IN_ORDER:
        for name in family.members:
            assert f"| {name} |" in text
