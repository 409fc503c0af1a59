"""What a verdict rests on (issue 34): `Assumes`, the items every verdict states under
`assumes`, in its text, its JSON and a privacy snapshot's header.

An `Item` says what (`what`), how (`how`), and whether the audit checked it (`checked`) or the
verdict assumes it without checking. Every item an entry point may state is named here, once:
the entry points pick them (`code_items`, `pairs_given`, ...) and never write their own text,
so a new fact about what an audit checks (a new check of the user's code, say) is one edit
here. The JSON of an item: `{"item": key, "what": ..., "how": ..., "status": "checked" or
"assumed"}`; its text line: `checked: what` or `assumed, not checked: what` (a snapshot's
header adds `; how: ...`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ARITHMETIC_CERTIFIED",
    "ARITHMETIC_EXACT",
    "ARITHMETIC_FACTORED",
    "ARITHMETIC_RENYI",
    "CLAIMS_ARITHMETIC",
    "CLAIMS_GRID",
    "CLAIMS_SAMPLED",
    "DEPLOYED",
    "DEPTH_SEAMS",
    "HIDDEN_STATE",
    "OFFPATH",
    "OTHER_PAIRS",
    "OTHER_PROFILES",
    "OUTPUTS",
    "OUTSIDE_RANDOMNESS",
    "OUTSIDE_RANDOMNESS_BUILT",
    "OWN_CODE",
    "PRIVTREE_NOT_REPLAYED",
    "PRIVTREE_SEAMS",
    "PURE",
    "REDUCTION_PREMISE",
    "RELEASE_PATH_KINDS",
    "RELEASE_PATH_UNSEEN",
    "REPLAY",
    "SHARED_SEAMS",
    "TRANSCRIBED",
    "USER_CODE",
    "USER_VARIANT",
    "Assumes",
    "Item",
    "arithmetic",
    "claims_not_checked",
    "code_items",
    "direct",
    "pairs_covered",
    "pairs_every",
    "pairs_given",
    "pairs_listed",
    "pairs_searched",
    "profiles_audited",
    "reduction_items",
    "release_path",
    "release_path_not_done",
    "strict",
]


@dataclass(frozen=True)
class Item:
    """One thing a verdict rests on: `key` (an identifier, one per kind of fact), `what`,
    `how` it was checked (or why it is not), and `checked` (False: assumed, not checked)."""

    key: str
    what: str
    how: str
    checked: bool

    @property
    def status(self) -> str:
        return "checked" if self.checked else "assumed"

    def line(self, how: bool = False) -> str:
        """`checked: what` or `assumed, not checked: what`, with `; how: ...` when asked."""
        head = f"{'checked' if self.checked else 'assumed, not checked'}: {self.what}"
        return f"{head}; how: {self.how}" if how else head

    def as_json(self) -> dict[str, Any]:
        return {"item": self.key, "what": self.what, "how": self.how, "status": self.status}


@dataclass(frozen=True)
class Assumes:
    """The items of one verdict, in order; `with_(item)` replaces the item of the same key (or
    adds it at the end)."""

    items: tuple[Item, ...] = ()

    @staticmethod
    def of(*groups: Item | Iterable[Item]) -> Assumes:
        out: list[Item] = []
        for group in groups:
            out.extend([group] if isinstance(group, Item) else group)
        return Assumes(tuple(out))

    def with_(self, *items: Item) -> Assumes:
        out = list(self.items)
        for item in items:
            keys = [i.key for i in out]
            if item.key in keys:
                out[keys.index(item.key)] = item
            else:
                out.append(item)
        return Assumes(tuple(out))

    @staticmethod
    def common(each: Iterable[Assumes]) -> Assumes:
        """The items every one of `each` states (in the first one's order)."""
        found = list(each)
        if not found:
            return Assumes()
        return Assumes(tuple(i for i in found[0].items
                             if all(i in other.items for other in found[1:])))

    def without(self, other: Assumes) -> Assumes:
        """The items of this one that `other` does not state."""
        return Assumes(tuple(i for i in self.items if i not in other.items))

    def __bool__(self) -> bool:
        return bool(self.items)

    def as_json(self) -> list[dict[str, Any]]:
        return [item.as_json() for item in self.items]

    def lines(self, how: bool = False) -> list[str]:
        return [item.line(how) for item in self.items]

    def block(self, indent: str = "  ") -> list[str]:
        """The short block of a text verdict: `assumes:` and one line per item (the JSON and
        the trust page say how each is checked)."""
        if not self.items:
            return []
        return [f"{indent}assumes:", *(f"{indent}  {line}" for line in self.lines())]


# -- whose code ---------------------------------------------------------------------------------
OWN_CODE = Item(
    "code", "the mechanism is the package's own code, not yours",
    "identified as the package's own class or function, its seams not changed "
    "(betweencut.boundary.seams); the package's tests and claims check that code", True)
USER_CODE = Item(
    "code", "the mechanism audited is your code, run in child processes",
    "run as given, in children forked from the audit's process (betweencut.boundary."
    "isolation): its exit, signals, closed streams or hang are an error of the audit (exit 2), "
    "never its verdict; what is checked of it is listed with it", True)
USER_CODE_IN_PROCESS = Item(
    "code", "the mechanism audited is your code, run in the audit's process",
    "run as given (a PrivTree's seams are not run in children): what is checked of it is "
    "listed with it", True)
USER_CODE_FIRST_CHILD = Item(
    "code", "the mechanism audited is your code, run in a child first, then in the audit's "
    "process", "each database's law is enumerated once in a child (its exit, signals or hang "
    "are an error of the audit), then in the audit's process: this kind's laws (Gaussian "
    "noise, the field's primitives) are not sent across processes", True)
USER_VARIANT = Item(
    "code", "the variant is your code: the audit builds it and runs its count query's call",
    "its run is not run: the path grouping models Alg. 3's, checked to be the variant's", True)
DEPLOYED = Item(
    "deployed", "the code audited is the code you deploy",
    "no audit can check it: the verdict speaks of the code this audit ran", False)
SEALED = Item(
    "sealed", "your code does not rewrite the audit in the audit's process",
    "your module is imported in the audit's process too (and some kinds run there); for a "
    "mechanism named MODULE:CALLABLE a tamper check (betweencut.boundary.seal) refuses any "
    "verdict after the audit's functions, classes or the interpreter's hooks changed, or a "
    "function of the package came from another file; not checked: writes into memory "
    "(ctypes), changes deep inside data, changes undone before the check, changes to the "
    "check's own code", False)
OUTPUTS = Item(
    "outputs", "two outputs are one release only if their canonical encodings are equal",
    "outputs are grouped by their bytes (betweencut.boundary.encoding): a closed set of types, "
    "each encoded with its type, floats by their bits, mappings in order; no __eq__, __hash__ "
    "or __repr__ of your objects is called, and any other type is refused", True)
REPLAY = Item(
    "replay", "in the audit's processes (children forked from the audit's), each run's output "
    "is a function of the database and its noisy answers",
    "each database's law is enumerated in two fresh processes forked from the audit's (an "
    "audit of listed databases: all of them in the same two, in opposite orders), which "
    "explore the answers in two orders, and must agree answer sequence by answer sequence: "
    "betweencut.proofs.privacy.enumeration.isolated; forked children see the audit's modules "
    "and call stack: the same code outside the audit is the release_path item", True)
REPLAY_IN_PROCESS = Item(
    "replay", "each run's output is a function of the database and its noisy answers",
    "checked in part: a replayed prefix must meet the same noisy queries; the runs are not "
    "compared across two fresh processes for this kind", False)
PRIVTREE_NOT_REPLAYED = Item(
    "replay", "each run's output is a function of its noisy answers",
    "a PrivTree is not replayed; the reduction's run-time guard (boxes outside T_z ask the same "
    "queries under D and D + z) catches some hidden state", False)
HIDDEN_STATE = Item(
    "hidden_state", "no state carried from one run to another: a cache per database, a call "
    "counter, a global", "checked inside the process: every database runs in fresh processes "
    "(two per database, or two for all the databases an audit lists, in opposite orders), and "
    "its runs in two orders must agree (a memo, a counter, a default argument, "
    "a function attribute, lru_cache, a global, an environment variable the code sets); not "
    "checked: state outside the process (a file, a socket), state the code built in the "
    "audit's process before the audit (a test that ran it first), state the reversed order "
    "(or the databases run before it) leaves unchanged, randomness that repeats under fork, "
    "and a curator's code forging its child's messages (docs: explanation/trust)", True)
HIDDEN_STATE_IN_PROCESS = Item(
    "hidden_state", "no state carried from one run to another: a cache per database, a call "
    "counter, a global", "not checked: this audit runs your code in its own process (a "
    "PrivTree's seams, a depth variant's count query, the Gaussian and field kinds), not in "
    "fresh children", False)
RELEASE_PATH_UNSEEN = Item(
    "release_path_unseen", "your code does not recognise the release-path replay itself (the "
    "sampler's seed and private recording slot, argv, the parent process), nor write into its "
    "report (a descriptor the replay's process holds open), nor behave otherwise on answers, "
    "seeds or databases the replay did not draw",
    "not checked: the replay runs the deployed code with the deployed sampler's class, which "
    "code looking for the replay could still tell apart (betweencut.boundary.release_replay)",
    False)


def release_path(runs: int, databases: int, audited: int) -> Item:
    """RELEASE_PATH, checked: `runs` runs on each of `databases` databases (of the `audited`
    databases of the pairs audited) replayed in a fresh interpreter with the release sampler
    gave the outputs the audit enumerated for the same answers."""
    upto = (f"{databases} databases" if databases >= audited else
            f"the first {databases} of the {audited} databases audited")
    return Item(
        "release_path", f"replayed on the release path: {runs} runs per database ({upto}) in "
        "a fresh interpreter with the release sampler gave the outputs enumerated for the "
        "same answers",
        "betweencut.boundary.release_replay: a fresh interpreter (not a fork of the audit), "
        "with no betweencut.proofs module loaded before your module, imports it by name and "
        f"runs each database with ExactSampler(seed), seeds 0..{runs - 1}; each run's answers "
        "must be an answer sequence the audit enumerated, asked of the same noisy tests, and "
        "its output's canonical bytes the enumerated output's "
        "(betweencut.proofs.privacy.enumeration.release_path)", True)


def release_path_not_done(why: str) -> Item:
    """RELEASE_PATH, not done (`why`): the verdict speaks of the code as audited only."""
    return Item("release_path", "your code behaves on the release path (a fresh interpreter, "
                "the release sampler) as it did when audited", f"not replayed: {why}", False)


RELEASE_PATH_KINDS = ("this kind is not replayed on the release path (PrivTree, shared-noise "
                      "primitives, Gaussian noise, the field's primitives, the depth audit, "
                      "corpus rows)")


OUTSIDE_RANDOMNESS = Item(
    "outside_randomness", "no randomness or clock read outside the noisy tests",
    "refused as it is drawn while your code runs: random (any Random), secrets, os.urandom, "
    "/dev/urandom, numpy.random, uuid1/uuid4 and the clocks raise (betweencut.boundary."
    "sandbox); not seen: a C function handed to another (map(random.random, ...)), threads, "
    "native libraries", True)
OUTSIDE_RANDOMNESS_BUILT = Item(
    "outside_randomness", "no randomness or clock read outside the noisy tests",
    "refused while the variant is built (betweencut.boundary.sandbox); not checked in the count "
    "query's call the path grouping runs (strict mode reads it)", False)
PURE = Item(
    "hidden_state", "pure: verified (no state carried from one run to another, no randomness "
    "or clock outside the noisy tests)",
    "strict mode: the source of the mechanism and of every function of your modules it "
    "reaches read against a pure subset before any of it ran (betweencut.boundary.purity)",
    True)

# -- the structure a fast path models -------------------------------------------------------------
SHARED_SEAMS = Item(
    "seams", "Alg. 3's run, which the shared outcome trees model",
    "checked on the constructed object (instance dictionary, every class, __getattr__ and the "
    "like, the base patched after import: betweencut.boundary.seams); a run replaced anywhere "
    "is enumerated directly, and seams changed while audited are refused", True)
DEPTH_SEAMS = Item(
    "seams", "the structure the path grouping models: Alg. 3's own level_order, apply and run, "
    "a count query asking one noisy test that does not read the node",
    "checked on the constructed object (betweencut.boundary.seams); refused otherwise", True)
PRIVTREE_SEAMS = Item(
    "seams", "PrivTree.run and its post-processing, which the reduction to T_z models",
    "checked on the constructed object (betweencut.boundary.seams); a PrivTree replacing "
    "either anywhere is enumerated directly, or refused where its pairs rest on the count DP",
    True)

# -- the arithmetic -------------------------------------------------------------------------------
ARITHMETIC_EXACT = Item(
    "arithmetic", "every probability, delta and comparison with the claim",
    "exact rationals and sums of c*exp(x), decided by the exact gate: certified enclosures "
    "where they separate, the exact sign where they straddle; Undecided, never a guess", True)
ARITHMETIC_CERTIFIED = Item(
    "arithmetic", "every probability, delta and comparison with the claim",
    "certified interval enclosures of the Gaussian laws, decided only where they separate; "
    "Undecided, never a guess", True)
ARITHMETIC_FACTORED = Item(
    "arithmetic", "every probability, delta and comparison with the claim",
    "exact sums of c*exp(x) per noisy test; which outputs violate decided exactly; the "
    "probabilities of a deep pair's event kept as products of exact factors, certified "
    "enclosures refined until they separate; Undecided, never a guess", True)

ARITHMETIC_RENYI = Item(
    "arithmetic", "every Renyi divergence and comparison with the claim",
    "exact where every term is, else certified enclosures; every order alpha > 1 by the "
    "arguments of betweencut.proofs.privacy.divergence.renyi, not a grid; Undecided, never a "
    "guess", True)
TRANSCRIBED = Item(
    "transcribed", "each published row runs the code as published, transcribed into the package",
    "by reading the report and its code beside the row's source: not checked by this audit",
    False)

# -- the pairs ------------------------------------------------------------------------------------
OTHER_PAIRS = Item(
    "other_pairs", "the pairs not audited (larger databases, other public inputs or parameters)",
    "not audited: 'holds' speaks of the pairs audited", False)
OTHER_PROFILES = Item(
    "other_pairs", "databases whose path profile was not audited",
    "not audited: 'holds' speaks of the profiles audited", False)
CLAIMS_ARITHMETIC = Item(
    "arithmetic", "every quantity a claim's checker compares",
    "exactly, or with certified enclosures, as each row's method says; Undecided, never a "
    "guess", True)
CLAIMS_GRID = Item(
    "pairs", "each registered claim on its built-in grid", "as each row's method and 'checked' "
    "say: enumerated, exact, certified or property-tested", True)
CLAIMS_SAMPLED = Item(
    "sampled", "the claims checked as properties (method 'property')",
    "on the examples Hypothesis drew: tested, not proved", False)
EXACTLY = "each enumerated exactly: every answer sequence of the real code"


def claims_not_checked(n: int, install: str) -> Item:
    """The registered claims this installation could not check (an optional extra missing)."""
    return Item("not_checked", f"{n} registered claim{'s' if n != 1 else ''} needing an "
                "optional extra", f"not checked here: {install} checks them", False)
OFFPATH = Item(
    "offpath", "every node off the added record's path is decided by its guard (tau >= E)",
    "checked for each profile audited; a profile where it fails is refused, not audited", True)


def arithmetic(certified: bool = False) -> Item:
    """`ARITHMETIC_CERTIFIED` when a value is a certified enclosure (Gaussian laws), else
    `ARITHMETIC_EXACT`."""
    return ARITHMETIC_CERTIFIED if certified else ARITHMETIC_EXACT


def _pairs(n: int) -> str:
    return f"{n} pair{'s' if n != 1 else ''}"


def _upto(audited: int, listed: int) -> str:
    return "" if audited >= listed else (f": {audited} of them, up to the first refutation "
                                         "(first: the worst pair not sought)")


def pairs_given(audited: int, listed: int | None = None) -> Item:
    """The pairs given (`listed`, default `audited`), the first `audited` of them audited."""
    listed = audited if listed is None else listed
    return Item("pairs", f"the {_pairs(listed)} given{_upto(audited, listed)}", EXACTLY, True)


def pairs_every(scope: str, audited: int, listed: int) -> Item:
    """Every pair of a scope (`every (D, z) with |D| <= 2`): `listed` pairs, of which the
    first `audited` were (all but on a refutation, which ends the audit)."""
    return Item("pairs", f"{scope} ({_pairs(listed)}){_upto(audited, listed)}", EXACTLY, True)


def pairs_searched(audited: int, listed: int, seed: int | None) -> Item:
    how = "derandomised: the same pairs every run" if seed is None else f"seeded with {seed}"
    return Item("pairs", f"{_pairs(listed)} found by a search ({how}){_upto(audited, listed)}",
                EXACTLY + "; a search, not every pair", True)


def pairs_covered(covered: str, audited: int) -> Item:
    """A PrivTree's pairs: what they cover (every database of at most `N` points, through the
    count DP's worst pair or a listing deduplicated by the counts on `T_z`), `audited` pairs."""
    return Item("pairs", f"{covered} ({audited} pair{'s' if audited != 1 else ''} audited)",
                EXACTLY + ", or its reduction to T_z; the pairs not listed are covered by the "
                "stated argument (the count DP, counts on T_z)", True)


def profiles_audited(n: int, searched: int | None) -> Item:
    """The depth audit's profiles: one given (`searched` None) or the family (the single-leaf
    band, two-segment profiles and those a search found)."""
    what = ("the path profile given" if searched is None else
            f"{n} path profiles: the single-leaf band and two-segment profiles" +
            (f", and a derandomised search that tried {searched}" if searched else ""))
    return Item("pairs", what, "each by exact path grouping of its answer sequences (equal "
                "to full enumeration of the real code: tested)", True)


def direct(why: str) -> Item:
    """The structure a fast path would model, not kept by this object (`why`): every pair is
    enumerated directly."""
    return Item("seams", "the structure the fast paths model", f"checked on the constructed "
                f"object and not kept ({why}): every pair enumerated directly", True)


# The every-input reduction's premise that nothing checks for a user's own code (the
# package's rows are read): `type(q_i)`, `id(q_i)` and the like tell the symbols apart from no
# input's answers.
REDUCTION_PREMISE = ("the mechanism reads its query answers only through the symbols "
                     "(arithmetic, comparisons, noisy queries), not through type(), id() or "
                     "the like")


def reduction_items(own: bool) -> tuple[Item, ...]:
    """The every-input reduction: its pairs, and its premise (true of the package's own rows
    by reading them; for a mechanism of your own, assumed: never checked by the audit)."""
    return (Item("pairs", "every neighbouring input at once",
                 "the monotone-vertex reduction (proved in betweencut.proofs.privacy.enumeration"
                 ".every_input), its preconditions checked during the symbolic run and the "
                 "extreme pair enumerated directly", True),
            Item("premise", REDUCTION_PREMISE, "true of the package's own rows by reading "
                 "their code, not checked by this audit" if own else "not checked: your own "
                 "mechanism cannot be read; method auto lists it instead", False))


def strict(assumes: Assumes, pure: bool) -> Assumes:
    """A verdict's items under strict mode (`pure`: the static check passed): "pure: verified"
    in place of the hidden-state item (issue 34); unchanged otherwise."""
    if pure and any(item.key == PURE.key for item in assumes.items):
        return assumes.with_(PURE)
    return assumes  # the package's own code: nothing of yours to verify


def pairs_listed(n: int, first: bool = False) -> Item:
    """A corpus row's pairs: every pair of its databases (the corpus states their size); with
    `first`, the `n` pairs up to the first refutation, where the row stopped."""
    if first:
        return Item("pairs", f"the neighbouring pairs of databases up to the corpus's size, "
                    f"{_pairs(n)} up to the first refutation (first: the worst pair not "
                    "sought)", EXACTLY, True)
    return Item("pairs", f"every neighbouring pair of databases up to the corpus's size ({n} "
                "pairs)", EXACTLY, True)


def code_items(own: bool, replayed: bool | None = True, isolated: bool = True,
               release: Item | None = None) -> tuple[Item, ...]:
    """The items about whose code ran: the package's own, or yours with what is checked of it
    (`replayed` False: a PrivTree, run in the audit's process; None: the depth audit, which
    runs your count query's call only, in its process; True: your code in fresh children,
    `betweencut.boundary.isolation`, unless not `isolated`: a kind whose laws are enumerated
    in the audit's process after a first run in a child, the Gaussian and field kinds).
    `release`: the release-path replay's item (`release_path`, or `release_path_not_done`);
    by default not done, for a kind the release path is not replayed for."""
    if own:
        return (OWN_CODE,)
    if release is None:
        release = release_path_not_done(RELEASE_PATH_KINDS)
    unseen = (RELEASE_PATH_UNSEEN,) if release.checked else ()
    if replayed is None:
        return (USER_VARIANT, DEPLOYED, SEALED, HIDDEN_STATE_IN_PROCESS,
                OUTSIDE_RANDOMNESS_BUILT, release)
    if not replayed:
        return (USER_CODE_IN_PROCESS, DEPLOYED, SEALED, OUTPUTS, PRIVTREE_NOT_REPLAYED,
                HIDDEN_STATE_IN_PROCESS, OUTSIDE_RANDOMNESS, release)
    if not isolated:
        return (USER_CODE_FIRST_CHILD, DEPLOYED, SEALED, OUTPUTS, REPLAY_IN_PROCESS,
                HIDDEN_STATE_IN_PROCESS, OUTSIDE_RANDOMNESS, release)
    return (USER_CODE, DEPLOYED, SEALED, OUTPUTS, REPLAY, release, *unseen, HIDDEN_STATE,
            OUTSIDE_RANDOMNESS)
