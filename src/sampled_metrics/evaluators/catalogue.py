"""The evaluators researchers run, one entry each: how each draws its negatives, ranks and
scores, as read from its own code (file and function in ``code``).

Each entry states

- ``draws``: ``with_replacement`` (uniform, a negative may recur), ``without_replacement``
  (uniform distinct), ``popularity`` (in proportion to item counts) or ``top_popular`` (the
  same most popular items every time: not random, so no correction exists);
- ``pool``: the items negatives come from, and ``self_draw``: whether the evaluated item
  itself can be drawn: ``never``, ``tied`` (the copy is scored and ties with the positive)
  or ``merged`` (the copy and the positive become one candidate);
- ``duplicates``: a negative drawn twice is ``counted`` twice in the rank or ``collapsed``
  into one candidate (``none`` without replacement);
- ``ties``: where a negative with the positive's score goes: ``pessimistic`` (above it),
  ``optimistic`` (below it) or ``random`` (an order the code leaves unspecified, e.g. an
  unstable sort);
- ``unit``: what the metric averages over, ``user`` or test ``row``;
- ``metrics``: each metric as the evaluator names and computes it, with the project's metric
  where the two are equal for every input.

``code`` names the files and functions each entry was read from, at the commit of the
repository read (``@<commit>``); ``notes`` what else a user of that evaluator should know.

The law of the rank an evaluator reports is :func:`~sampled_metrics.evaluators.law.reported_rank_pmf`;
:func:`~sampled_metrics.evaluators.scores.from_scores` turns its scores into the long format,
whose rows follow the project's ``sampling`` law of the entry (:attr:`Evaluator.sampling`).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..design import Design
from ..registry import Registry, check_sampling

__all__ = ["DRAWS", "SELF_DRAWS", "EVALUATOR_TIE_RULES", "Evaluator", "EVALUATORS", "get_evaluator",
           "evaluator_names", "correctable_evaluator", "resolve_evaluator", "design_of",
           "evaluator_sampling", "evaluator_notes"]

DRAWS = ("with_replacement", "without_replacement", "popularity", "top_popular")
SELF_DRAWS = ("never", "tied", "merged")
#: where an evaluator puts a negative that ties with the positive (its ``ties``)
EVALUATOR_TIE_RULES = ("pessimistic", "optimistic", "random")


@dataclass(frozen=True)
class Evaluator:
    """One evaluator's sampled protocol (module docstring).

    ``metrics`` holds ``(its name, project metric or '', its definition)``; ``refused``, when
    not empty, says in one line why no correction applies.
    """

    name: str
    title: str
    code: tuple
    negatives: int
    draws: str
    pool: str
    self_draw: str
    duplicates: str
    ties: str
    unit: str
    metrics: tuple
    notes: str = ""
    refused: str = ""

    @property
    def sampling(self) -> str | None:
        """The project's law (``binomial`` or ``hypergeometric``) of the long-format rows
        :func:`~sampled_metrics.evaluators.scores.from_scores` writes for this evaluator:
        self-draws removed, collapsed duplicates read as the distinct negatives they leave
        (a uniform subset given their number); None where no correction applies."""
        if self.refused or self.draws in ("popularity", "top_popular"):
            return None
        if self.draws == "with_replacement" and self.duplicates == "counted":
            return "binomial"
        return "hypergeometric"

    def summary(self) -> str:
        """One line: the law, the pool, ties and unit."""
        if self.refused:
            return f"{self.title}: refused ({self.refused})"
        draws = self.draws.replace("_", " ")
        extra = {"never": "", "tied": ", the positive itself can be drawn (a tie)",
                 "merged": ", the positive itself can be drawn (one candidate)"}[self.self_draw]
        dup = f", duplicates {self.duplicates}" if self.duplicates != "none" else ""
        return (f"{self.title}: {self.negatives} negatives {draws} from {self.pool}{extra}"
                f"{dup}; ties {self.ties}; per {self.unit}")


_HR = "1 if the positive's rank <= k"
_NDCG = "1 / log2(rank + 1) if rank <= k"
_MRR = "1 / rank of the first positive if <= k"

#: the evaluators by name, in catalogue order (``sampled-metrics evaluators`` lists them)
EVALUATORS = Registry("evaluator", (
    Evaluator(
        "sasrec", "SASRec",
        ("kang205/SASRec util.py evaluate @e373896",
         "pmixer/SASRec.pytorch python/utils.py evaluate @fde8a9c",
         "microsoft/recommenders recommenders/models/sasrec/model.py SASREC.evaluate "
         "@d580143"),
        100, "with_replacement", "the items outside the user's training sequence (the "
        "validation item included)", "tied", "counted", "random", "user",
        (("HR@10", "hit@10", _HR), ("NDCG@10", "ndcg@10", _NDCG)),
        notes="rank = argsort().argsort()[0] of the negated scores, an unstable sort: the "
              "order of ties is unspecified; more than 10,000 users: an unseeded random "
              "10,000"),
    Evaluator(
        "bert4rec", "BERT4Rec (reference TensorFlow code)",
        ("FeiSun/BERT4Rec run.py EvalHooks @615eaf2",
         "FeiSun/BERT4Rec gen_data_fin.py main @615eaf2"),
        100, "popularity", "the items outside the input sequence, weighted by their counts",
        "never", "none", "random", "user",
        (("HR@k", "hit@k", _HR), ("NDCG@k", "ndcg@k", _NDCG), ("ap", "mrr", "1 / rank")),
        notes="use_pop_random is True by default: 100 distinct negatives by weighted "
              "sampling without replacement (weights: interaction counts)",
        refused="negatives drawn distinct in proportion to popularity: their positions do "
                "not identify the full rank"),
    Evaluator(
        "bert4rec-pytorch", "BERT4Rec PyTorch port, random negatives",
        ("jaywonchung/BERT4Rec-VAE-Pytorch dataloaders/negative_samplers/random.py "
         "RandomNegativeSampler.generate_negative_samples @f66f253",
         "jaywonchung/BERT4Rec-VAE-Pytorch trainers/utils.py recalls_and_ndcgs_for_ks "
         "@f66f253"),
        100, "without_replacement", "the items outside the user's training, validation and "
        "test sets", "never", "none", "random", "user",
        (("Recall@k", "recall@k", "hits / min(k, positives)"), ("NDCG@k", "ndcg@k", _NDCG)),
        notes="ids are drawn from 1..N while items are 0..N-1: item 0 is never a negative "
              "and the id N can be; metrics are means of batch means"),
    Evaluator(
        "bert4rec-pytorch-popular", "BERT4Rec PyTorch port, popular negatives",
        ("jaywonchung/BERT4Rec-VAE-Pytorch dataloaders/negative_samplers/popular.py "
         "PopularNegativeSampler.generate_negative_samples @f66f253",),
        100, "top_popular", "each user's 100 most popular unseen items", "never", "none",
        "random", "user",
        (("Recall@k", "recall@k", "hits / min(k, positives)"), ("NDCG@k", "ndcg@k", _NDCG)),
        refused="each user's 100 most popular unseen items, not a random draw"),
    Evaluator(
        "ncf", "NCF (fixed .test.negative file)",
        ("hexiangnan/neural_collaborative_filtering evaluate.py eval_one_rating @4aab159",
         "hexiangnan/neural_collaborative_filtering Dataset.py load_negative_file @4aab159"),
        99, "without_replacement", "the items outside the user's training set", "merged",
        "none", "pessimistic", "user",
        (("HR@10", "hit@10", _HR), ("NDCG@10", "ndcg@10", "log(2) / log(rank + 1)")),
        notes="156 of the 6,040 lines of Data/ml-1m.test.negative hold the user's own test "
              "item; the scores go into a dict, so that line ranks the positive among 98 "
              "negatives; heapq.nlargest puts a tied positive (inserted last) below, under "
              "Python 3.7 and later, except on such a line, where the test item keeps its "
              "place in the line and a tied negative after it goes below it (from_scores "
              "counts every tie above: a rank at most that many places low)"),
    Evaluator(
        "rechorus", "ReChorus (neg_items drawn distinct: ML-1M, MIND)",
        ("THUwangcy/ReChorus src/helpers/BaseRunner.py BaseRunner.evaluate_method @e58d752",
         "THUwangcy/ReChorus src/models/BaseModel.py BaseModel.parse_model_args @e58d752"),
        99, "without_replacement", "the items outside the user's interactions", "never",
        "none", "pessimistic", "row",
        (("HR@k", "hit@k", _HR), ("NDCG@k", "ndcg@k", _NDCG)),
        notes="--test_all 0 by default: a sampled evaluation; rank = (pred >= pred[:, 0]).sum(); "
              "the saved rec-<model>-test.csv lists a tied positive first, the metric last"),
    Evaluator(
        "rechorus-replacement", "ReChorus (neg_items drawn with replacement: Amazon)",
        ("THUwangcy/ReChorus src/helpers/BaseRunner.py BaseRunner.evaluate_method @e58d752",),
        99, "with_replacement", "the items outside the user's interactions", "never",
        "counted", "pessimistic", "row",
        (("HR@k", "hit@k", _HR), ("NDCG@k", "ndcg@k", _NDCG)),
        notes="a negative drawn twice counts twice in (pred >= pred[:, 0]).sum()"),
    Evaluator(
        "daisyrec", "DaisyRec 2.x",
        ("AmazingDD/daisyRec daisy/utils/utils.py build_candidates_set @7b46481",
         "AmazingDD/daisyRec daisy/utils/metrics.py @7b46481"),
        1000, "with_replacement", "the items outside the user's training and test sets",
        "never", "counted", "random", "user",
        (("HR@k", "hit@k", "1 if any positive is in the top k"),
         ("Recall@k", "recall@k", "hits / positives"),
         ("MRR@k", "mrr@k", _MRR),
         ("NDCG@k", "", "DCG / IDCG, the IDCG of the hits found")),
        notes="cand_num (default 1,000) candidates: the test positives appended to "
              "cand_num - positives draws; unstable argsort, cut to topk (default 50); "
              "needs numpy < 2"),
    Evaluator(
        "elliot", "Elliot (negative_sampling: random)",
        ("sisinflab/elliot elliot/negative_sampling/negative_sampling.py @fc27efe",),
        100, "without_replacement", "the items outside the user's training and test sets",
        "never", "none", "random", "user",
        (("HR@k", "hit@k", "1 if any positive is in the top k"),
         ("nDCGRendle2020@k", "ndcg@k", _NDCG), ("MRR@k", "mrr@k", _MRR),
         ("nDCG@k", "", "graded gain 2^(rel - threshold + 1) - 1")),
        notes="random.sample per user (seed 42); tf.nn.top_k puts the lower internal item "
              "index first among ties, an order unrelated to relevance"),
    Evaluator(
        "msr-ncf", "Microsoft Recommenders NCF",
        ("microsoft/recommenders recommenders/models/ncf/dataset.py Dataset @d580143",),
        100, "without_replacement", "the items outside the user's training and test sets",
        "never", "none", "pessimistic", "row",
        (("HR@10", "hit@10", _HR), ("NDCG@10", "", "1 / ln(rank + 1): natural log")),
        notes="one set of negatives per test positive; the deep-dive notebook ranks with "
              "sum(scores >= positive's) and its NDCG is log2-based NDCG x 1.44"),
    Evaluator(
        "recbole-uni", "RecBole uni<N>",
        ("RUCAIBox/RecBole recbole/sampler/sampler.py Sampler._uni_sampling",),
        100, "with_replacement", "the items outside the user's training, validation and "
        "test sets", "never", "collapsed", "random", "user",
        (("Hit@k", "hit@k", _HR), ("NDCG@k", "ndcg@k", _NDCG), ("MRR@k", "mrr@k", _MRR)),
        notes="N negatives per positive; scores written into a users x items matrix, so "
              "duplicates collapse (integrations.recbole.capture records the list)"),
    Evaluator(
        "recbole-pop", "RecBole pop<N>",
        ("RUCAIBox/RecBole recbole/sampler/sampler.py Sampler._pop_sampling",),
        100, "popularity", "the items outside the user's training, validation and test "
        "sets, in proportion to count^alpha", "never", "collapsed", "random", "user",
        (("Hit@k", "hit@k", _HR), ("NDCG@k", "ndcg@k", _NDCG)),
        refused="popularity-sampled positions need each draw's probability: use "
                "integrations.recbole.capture"),
))


def evaluator_names() -> list[str]:
    """The registry's names, in catalogue order."""
    return list(EVALUATORS)


def get_evaluator(name) -> Evaluator:
    """What an evaluator samples, ranks and reports: its catalogue entry.

    The entry ``name`` names (:meth:`~sampled_metrics.registry.Registry.canonical`: in any
    case, without surrounding spaces; an :class:`Evaluator` passes through), else a
    one-line ValueError listing the names.

    Examples
    --------
    >>> get_evaluator("sasrec").sampling
    'binomial'
    >>> get_evaluator("SASRec").name
    'sasrec'
    >>> get_evaluator("sas")
    Traceback (most recent call last):
    ...
    ValueError: unknown evaluator 'sas'; expected one of sasrec, bert4rec, bert4rec-pytorch, \
bert4rec-pytorch-popular, ncf, rechorus, rechorus-replacement, daisyrec, elliot, msr-ncf, \
recbole-uni, recbole-pop
    """
    if isinstance(name, Evaluator):
        return name
    return EVALUATORS[EVALUATORS.canonical(name)]


def correctable_evaluator(evaluator) -> Evaluator:
    """:func:`get_evaluator`, refusing in one line an evaluator no correction applies to.

    Examples
    --------
    >>> correctable_evaluator("recbole-pop")
    Traceback (most recent call last):
    ...
    ValueError: evaluator 'recbole-pop': popularity-sampled positions need each draw's \
probability: use integrations.recbole.capture
    """
    e = get_evaluator(evaluator)
    _refuse_uncorrectable(e, _written(evaluator, e), "evaluator")
    return e


def resolve_evaluator(evaluator=None, *, sampling=None, m=None, long: bool | None, n=None,
                      names: tuple[str, str] = ("sampling", "evaluator")) -> Design:
    """The design an evaluator implies, by the one rule of the library and every command:
    a :class:`~sampled_metrics.design.Design` of ``n`` items (None where not known here),
    checked once.

    With no evaluator, the law given (default ``binomial``) and the m given. With one (a
    name of :func:`get_evaluator` or its entry), refused in one line where no correction
    applies to it, the law is that of its ranks:

    - ``long=True``: the long-format rows :func:`~sampled_metrics.evaluators.scores.from_scores`
      writes (:attr:`Evaluator.sampling`);
    - ``long=False``: the ranks it reports, one per user, refused where they follow neither
      law (it can draw the positive itself, or collapses duplicates);
    - ``long=None``: the law of its draws, for a law of the reported rank that models the
      rest (:func:`~sampled_metrics.evaluators.law.reported_rank_pmf`).

    A ``sampling`` equal to that law is accepted, one that contradicts it refused naming
    both as they were given. m is ``m`` where given (an evaluator's number of negatives is
    a setting of its code, which users change), else the evaluator's own, except for the
    long format. ``names``: how messages call the law and the evaluator (``--sampling``,
    ``--evaluator`` on the command line, or where an input's column named it).

    Examples
    --------
    >>> d = resolve_evaluator("Elliot", long=False, n=3706)
    >>> d.evaluator.name, d.n, d.m, d.sampling
    ('elliot', 3706, 100, 'hypergeometric')
    >>> d = resolve_evaluator("ncf", sampling="Hypergeometric", long=True)
    >>> d.sampling, d.m                   # the long format gives each user's m
    ('hypergeometric', None)
    >>> resolve_evaluator(None, m=99, long=False)
    Design(n=None, m=99, sampling='binomial', evaluator=None)
    >>> resolve_evaluator("ReChorus", sampling="binomial", long=False)
    Traceback (most recent call last):
    ...
    ValueError: sampling 'binomial' contradicts evaluator 'ReChorus', whose ranks follow \
the hypergeometric law
    >>> resolve_evaluator("sasrec", long=False, names=("--sampling", "--evaluator"))
    Traceback (most recent call last):
    ...
    ValueError: --evaluator 'sasrec' can draw the positive itself: the ranks it reports \
follow no binomial or hypergeometric law; give the long format from_scores writes \
(user,position,n_nonrelevant,n_negatives)
    """
    given = None if sampling is None else check_sampling(sampling)
    if evaluator is None:
        return Design(n, m, given or "binomial")
    e = get_evaluator(evaluator)
    written = _written(evaluator, e)
    _refuse_uncorrectable(e, written, names[1])
    if long is False and (e.self_draw != "never" or e.duplicates == "collapsed"):
        what = ("can draw the positive itself" if e.self_draw != "never" else
                "collapses duplicates")
        raise ValueError(f"{names[1]} {written!r} {what}: the ranks it reports follow no "
                         f"binomial or hypergeometric law; give the long format from_scores "
                         f"writes (user,position,n_nonrelevant,n_negatives)")
    if given is not None and given != e.sampling:
        raise ValueError(f"{names[0]} {sampling!r} contradicts {names[1]} {written!r}, whose "
                         f"ranks follow the {e.sampling} law")
    return Design(n, m if m is not None or long else e.negatives, e.sampling, e)


def design_of(n, m=None, *, sampling=None, evaluator=None, long: bool | None = False,
              names: tuple[str, str] = ("sampling", "evaluator")) -> Design:
    """The design of a public function's arguments, built once: ``n`` a
    :class:`~sampled_metrics.design.Design` as it is (then no ``m``, ``sampling`` or
    ``evaluator`` beside it), else :func:`resolve_evaluator` of them, n and m both known.

    Examples
    --------
    >>> d = design_of(3706, None, evaluator="elliot")
    >>> d.n, d.m, d.sampling
    (3706, 100, 'hypergeometric')
    >>> design_of(d) is d
    True
    """
    if isinstance(n, Design):
        if m is not None or sampling is not None or evaluator is not None:
            raise TypeError("give a Design or n, m, the law and the evaluator, not both")
        return n.known()
    return resolve_evaluator(evaluator, sampling=sampling, m=m, long=long, n=n,
                             names=names).known()


def _written(evaluator, e: Evaluator) -> str:
    """How messages name an evaluator: as the caller wrote it (its name for an entry)."""
    return evaluator if isinstance(evaluator, str) else e.name


def _refuse_uncorrectable(e: Evaluator, written: str, name: str) -> None:
    """A one-line ValueError where no correction applies to ``e`` (``name``: how messages
    call the evaluator)."""
    if e.sampling is None:
        raise ValueError(f"{name} {written!r}: {e.refused}")


def evaluator_sampling(evaluator, *, long: bool) -> str:
    """The law (``binomial`` or ``hypergeometric``) under which an evaluator's numbers are
    corrected: those of the long-format rows
    :func:`~sampled_metrics.evaluators.scores.from_scores` writes (``long``), or of the ranks
    the evaluator itself reports, one per user (:func:`resolve_evaluator`'s law: a one-line
    ValueError where no correction applies, or where the reported ranks follow neither law).

    Examples
    --------
    >>> evaluator_sampling("ncf", long=True)
    'hypergeometric'
    >>> evaluator_sampling("rechorus-replacement", long=False)
    'binomial'
    """
    return resolve_evaluator(evaluator, long=long).sampling


def evaluator_notes(evaluator) -> list[str]:
    """One line per metric the evaluator defines otherwise than the project: the corrected
    rows are the project's (standard) metrics, not its own.

    Examples
    --------
    >>> evaluator_notes("msr-ncf")
    ["msr-ncf's NDCG@10 is 1 / ln(rank + 1): natural log; the rows above are the standard metrics"]
    """
    e = get_evaluator(evaluator)
    return [f"{e.name}'s {own} is {definition}; the rows above are the standard metrics"
            for own, ours, definition in e.metrics if not ours]
