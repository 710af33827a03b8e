"""The fan-out of the workflow: which datasets, recommenders, sample sizes m and model seeds a
configuration asks for, computed from the config mapping alone (no files, no Snakemake).

``workflow/rules/common.smk`` builds its wildcard constraints, targets and input functions
from one :class:`FanOut` of the run's config, and :mod:`sampled_metrics.workflow.configuration.check` checks
the same plan before any job runs (the m of every rank file against the dataset's items and
its sampled ranks against memory), so the two cannot disagree.

Vocabulary (the config's sections): the *study* is KDD'20 Sec. 6 (``study``), *Jin* Jin et
al.'s tables and figures (``jin``, counted only when ``jin.enabled``), the *practice study*
``practice``; a *view* is a ``dataset_protocols`` entry with ``of``: a new name for a
dataset's split and fits, ranked under another protocol.

The config is read as it is given: the checks of :mod:`sampled_metrics.workflow.configuration.check` (which
call this module on a config whose schema is valid but whose names may not be) come first,
so nothing here repeats them.
"""
from __future__ import annotations

from collections.abc import Mapping

from ...recommenders import model_seed
from ..steps.ranks import DEFAULT_USERS_PER_SHARD

__all__ = ["FanOut", "PAPER_DATASET", "DROP_KEY"]

#: The papers' dataset: the top-level copies of their figures (``figures/figure5.pdf`` of
#: ``figures/ml-1m/figure5.pdf``, ...) are made from a run on it, never from another dataset.
PAPER_DATASET = "ml-1m"

#: The config key that leaves out of the evaluation the users with too few candidates.
DROP_KEY = "study.drop_users_with_few_candidates"


def _unique(values) -> list:
    """``values`` without repeats, in first-seen order."""
    return list(dict.fromkeys(values))


class FanOut:
    """The fan-out plan of one workflow configuration.

    Parameters
    ----------
    config : mapping
        The merged workflow config (``config/config.yaml`` and any ``--configfile``).

    Attributes
    ----------
    config : mapping
        The config as given.
    toy : dict
        The ``toy`` section (the running example) if ``toy.enabled`` (the default), else
        empty.
    study : dict
        The ``study`` section (empty if absent).
    jin : dict
        The ``jin`` section if ``jin.enabled``, else empty.
    practice : dict
        The ``practice`` section (empty if absent), whether or not it is enabled:
        ``snakemake practice`` runs it on request.

    Examples
    --------
    >>> config = {
    ...     "datasets": {"d": {"format": "synthetic"}},
    ...     "recommenders": {"A": {"model": "ials"}, "B": {"model": "ease"}},
    ...     "study": {"datasets": ["d"], "recommenders": ["A"], "m": 50, "repeats": 10},
    ...     "jin": {"enabled": True, "recommenders": ["A", "B"], "m": 49,
    ...             "figure3": {"recommender": "A", "m_values": [49, 99]}},
    ...     "dataset_protocols": {"d-all": {"of": "d", "candidates": "all"}},
    ... }
    >>> plan = FanOut(config)
    >>> for dataset, recommender, sizes in plan.rank_files():
    ...     print(dataset, recommender, sizes)
    d A {49: 10, 50: 10, 99: 10}
    d B {49: 10}
    d-all A {49: 10}
    d-all B {49: 10}
    >>> plan.jin_datasets(), plan.jin_figures("d-all")
    (['d', 'd-all'], [2])
    """

    def __init__(self, config: Mapping):
        self.config = config
        toy = config.get("toy") or {}
        self.toy = dict(toy) if toy.get("enabled", True) else {}
        self.study = dict(config.get("study") or {})
        jin = config.get("jin") or {}
        self.jin = dict(jin) if jin.get("enabled", False) else {}
        self.practice = dict(config.get("practice") or {})

    # --- datasets and views -------------------------------------------------------------

    def _protocol_entries(self) -> Mapping:
        return self.config.get("dataset_protocols") or {}

    def views(self) -> list[str]:
        """Names of the views (``dataset_protocols`` entries with ``of``), in config order."""
        return [name for name, p in self._protocol_entries().items() if "of" in (p or {})]

    def is_view(self, name: str | None) -> bool:
        """Whether ``name`` is a view."""
        return "of" in (self._protocol_entries().get(name) or {})

    def views_of(self, dataset: str) -> list[str]:
        """The views of ``dataset``: its split and fits, ranked under another protocol by the
        dataset's ranks jobs."""
        return [v for v, p in self._protocol_entries().items() if (p or {}).get("of") == dataset]

    def base_of(self, name: str) -> str:
        """The dataset whose split and fits ``name`` (a dataset or a view) ranks."""
        return (self._protocol_entries().get(name) or {}).get("of", name)

    def dataset_names(self) -> list[str]:
        """Every name a ``results/`` folder can have: the datasets, then the views."""
        return list(self.config.get("datasets") or {}) + self.views()

    def fitted_datasets(self) -> list[str]:
        """Datasets with a split and fits of their own (a view ranks its dataset's)."""
        return [d for d in self.config.get("datasets") or {} if not self.is_view(d)]

    def dataset_protocol(self, name: str) -> dict:
        """Candidates and law of the negatives of the rank files of ``name``: the study's
        (items outside the training set, ``study.sampling``) unless ``dataset_protocols``
        names it (e.g. Jin et al.'s: all items, negatives with replacement).

        Examples
        --------
        >>> plan = FanOut({"study": {"sampling": "hypergeometric"},
        ...                "dataset_protocols": {"v": {"of": "d", "sampling": "binomial"}}})
        >>> plan.dataset_protocol("d")
        {'candidates': 'unseen', 'sampling': 'hypergeometric'}
        >>> plan.dataset_protocol("v")
        {'candidates': 'unseen', 'sampling': 'binomial'}
        """
        default = {"candidates": "unseen",
                   "sampling": self.study.get("sampling", "hypergeometric")}
        given = self._protocol_entries().get(name) or {}
        return {**default, **{k: v for k, v in given.items() if k != "of"}}

    def dataset_spec(self, name: str) -> Mapping:
        """The catalogue entry of dataset ``name`` (``{'format': ..., **keys}``)."""
        return self.config["datasets"][name]

    def study_datasets(self) -> list[str]:
        """Datasets of the study (KDD'20 Sec. 6), in config order."""
        return list(self.study.get("datasets") or [])

    def paper_figures(self) -> list[str]:
        """Names of the papers' figures copied to the top of ``figures/`` from
        :data:`PAPER_DATASET`'s (``figures/figure5.pdf`` is ``figures/ml-1m/figure5.pdf``):
        KDD'20 Figures 5-6 when the study runs the ``ml-1m`` entry of format ``ml-1m``, Jin
        et al.'s when their tables do. None from any other dataset: a run on yours leaves
        the copies alone.

        Examples
        --------
        >>> ml1m = {"ml-1m": {"format": "ml-1m"}, "mine": {"format": "interactions"}}
        >>> FanOut({"datasets": ml1m, "study": {"datasets": ["mine", "ml-1m"]}}).paper_figures()
        ['figure5', 'figure6']
        >>> FanOut({"datasets": ml1m, "study": {"datasets": ["mine"]}}).paper_figures()
        []
        """
        spec = (self.config.get("datasets") or {}).get(PAPER_DATASET) or {}
        if spec.get("format") != PAPER_DATASET:
            return []
        names = ["figure5", "figure6"] if PAPER_DATASET in self.study_datasets() else []
        if PAPER_DATASET in self.jin_datasets():
            names += [f"jin_figure{i}" for i in self.jin_figures(PAPER_DATASET)]
        return names

    def jin_datasets(self) -> list[str]:
        """Datasets and views of Jin et al.'s tables and figures: ``jin.datasets``, else the
        study's datasets each followed by its views; none unless Jin is enabled."""
        if not self.jin:
            return []
        return list(self.jin.get("datasets") or [
            v for d in self.study_datasets() for v in [d, *self.views_of(d)]])

    def jin_figures(self, dataset: str | None = None) -> list[int]:
        """Numbers of Jin et al.'s figures the config asks for (Figure 1 only with
        ``jin.figure1``); of ``dataset``, if given, those drawn for it (a view gets no Figure
        3, which needs a second m of the dataset's own ranks)."""
        figures = [1, 2, 3] if "figure1" in self.jin else [2, 3]
        if dataset is not None and self.is_view(dataset):
            figures.remove(3)
        return figures

    def practice_datasets(self) -> list[str]:
        """Datasets of the practice study (when it runs: ``practice.enabled`` or
        ``snakemake practice``)."""
        return list(self.practice.get("datasets") or [])

    def used_datasets(self) -> list[str]:
        """Datasets some table or figure reads, a view's being the dataset it views: the
        study's, the practice study's, then Jin's."""
        names = self.study_datasets() + self.practice_datasets()
        names += [self.base_of(d) for d in self.jin.get("datasets") or []]
        return _unique(names)

    # --- recommenders ---------------------------------------------------------------------

    def recommender_spec(self, name: str) -> Mapping:
        """The catalogue entry of recommender ``name`` (``{'model': kind, **parameters}``)."""
        return self.config["recommenders"][name]

    def table_recommenders(self) -> list[str]:
        """Recommenders of the study's results table (``study.results_table.recommenders``),
        in config order; none without that key (then no results table is made).

        Examples
        --------
        >>> FanOut({"study": {"results_table": {"recommenders": ["A", "B"]}}}).table_recommenders()
        ['A', 'B']
        >>> FanOut({"study": {}}).table_recommenders()
        []
        """
        return list((self.study.get("results_table") or {}).get("recommenders") or [])

    def table_datasets(self) -> list[str]:
        """Datasets with a results table: the study's, when it names recommenders for one."""
        return self.study_datasets() if self.table_recommenders() else []

    def ranked_recommenders(self) -> list[str]:
        """Recommenders some table or figure of the study or of Jin ranks: the study's, the
        results table's, Jin's and Jin's Figure 1 and 3 recommenders, each once."""
        recs = list(self.study.get("recommenders") or []) + self.table_recommenders()
        if self.jin:
            recs += list(self.jin.get("recommenders") or [])
            recs += [(self.jin.get(f) or {}).get("recommender") for f in ("figure1", "figure3")]
        return _unique(r for r in recs if r is not None)

    def all_recommenders(self) -> list[str]:
        """Every recommender a job can fit: :meth:`ranked_recommenders` and the practice
        study's."""
        return _unique(self.ranked_recommenders()
                       + list(self.practice.get("recommenders") or []))

    # --- sample sizes ---------------------------------------------------------------------

    def sample_sizes(self, recommender: str, dataset: str | None = None, *,
                     seed: int | None = None) -> dict[int, int]:
        """{m: repeats} of the rank file of ``recommender`` on ``dataset`` (on any dataset if
        None), m ascending.

        KDD'20 Table 3 and the results table (``study.m``) on the study's datasets; Jin et al.'s Tables 2 and 4
        (``jin.m``) on Jin's datasets and views; Jin's Figure 3 (``jin.figure3.m_values``)
        of its recommender on Jin's datasets but not on views. A fit with model seed
        ``seed`` is ranked at Table 3's m only. Every m has ``study.repeats`` repeats.

        Examples
        --------
        >>> plan = FanOut({"study": {"datasets": ["d"], "recommenders": ["A"], "m": 50,
        ...                          "repeats": 10}})
        >>> plan.sample_sizes("A", "d"), plan.sample_sizes("A", "other"), plan.sample_sizes("B")
        ({50: 10}, {}, {})
        >>> plan.sample_sizes("A", "d", seed=3)
        {50: 10}
        """
        if seed is not None:
            return {self.study["m"]: self.study["repeats"]}
        sizes = set()
        study = list(self.study.get("recommenders") or []) + self.table_recommenders()
        if recommender in study and (dataset is None or dataset in self.study_datasets()):
            sizes.add(self.study["m"])
        if self.jin and (dataset is None or dataset in self.jin_datasets()):
            if recommender in self.jin["recommenders"]:
                sizes.add(self.jin["m"])
            if recommender == self.jin["figure3"]["recommender"] and not self.is_view(dataset):
                sizes.update(self.jin["figure3"]["m_values"])
        return {m: self.study["repeats"] for m in sorted(sizes)}

    def m_keys(self) -> list[tuple[str, int]]:
        """(config key, m) of every sample size a rank file can have, in the order of the
        config: ``study.m``, then Jin's ``jin.m`` and ``jin.figure3.m_values[i]``."""
        keys = [("study.m", self.study.get("m"))]
        if self.jin:
            keys += [("jin.m", self.jin.get("m"))]
            keys += [(f"jin.figure3.m_values[{i}]", m)
                     for i, m in enumerate((self.jin.get("figure3") or {}).get("m_values", []))]
        return keys

    def split_options(self, dataset: str) -> dict:
        """How the split of ``dataset`` checks its evaluated users before any fit (keyword
        arguments of :func:`sampled_metrics.datasets.make_split`): ``m``, the largest m its
        rank files and its views' draw among the items outside a user's training set (None
        without one, or with the dataset's fixed negatives), the config key that asks for
        it, and :data:`DROP_KEY`.

        Examples
        --------
        >>> plan = FanOut({"study": {"datasets": ["d"], "recommenders": ["A"], "m": 50,
        ...                          "repeats": 10, "drop_users_with_few_candidates": True}})
        >>> plan.split_options("d")["m"], plan.split_options("d")["drop_few_candidates"]
        (50, True)
        """
        keys = {}
        for key, m in self.m_keys():
            keys.setdefault(m, key)
        largest = max((m for name, _, sizes in self.rank_files()
                       if self.base_of(name) == dataset
                       and self.dataset_protocol(name)["candidates"] == "unseen"
                       for m in sizes), default=None)
        if self.study.get("fixed_negatives"):
            largest = None
        return {"m": largest, "m_key": keys.get(largest, "study.m"),
                "drop_few_candidates": bool(self.study.get("drop_users_with_few_candidates")),
                "drop_key": DROP_KEY}

    def all_sample_sizes(self) -> list[int]:
        """Every m some rank file has, ascending."""
        return sorted({m for rec in self.all_recommenders() for m in self.sample_sizes(rec)})

    def rank_files(self) -> list[tuple[str, str, dict[int, int]]]:
        """(dataset or view, recommender, {m: repeats}) of every rank file the study and Jin
        et al.'s tables and figures read (``results/<dataset>/ranks/<recommender>.npz``): the
        study's datasets, then Jin's not among them; per dataset the recommenders in the
        order of :meth:`all_recommenders`. A model seed's rank files are :meth:`seed_plan`'s.
        """
        out = []
        for dataset in _unique(self.study_datasets() + self.jin_datasets()):
            for rec in self.all_recommenders():
                sizes = self.sample_sizes(rec, dataset)
                if sizes:
                    out.append((dataset, rec, sizes))
        return out

    def correction_plan(self, m: int, dataset: str | None = None) -> dict[str, list[str]]:
        """Recommenders, metrics and corrections of the per-repeat corrections at ``m`` (of
        ``dataset``): the union of what Table 3 (at ``study.m``, on the study's datasets)
        and Jin's tables (at ``jin.m``, on Jin's datasets and views) read; every branch
        at ``m`` without ``dataset``.

        Examples
        --------
        >>> plan = FanOut({"study": {"datasets": ["d"], "m": 50, "recommenders": ["A"],
        ...                          "metrics": ["auc"], "corrections": ["cls"]}})
        >>> plan.correction_plan(50, "d")
        {'recommenders': ['A'], 'metrics': ['auc'], 'corrections': ['cls']}
        >>> plan.correction_plan(50, "elsewhere")["recommenders"]
        []
        """
        plan = {"recommenders": [], "metrics": [], "corrections": []}
        for branch, datasets in ((self.study, self.study_datasets()),
                                 (self.jin, self.jin_datasets())):
            if branch and branch["m"] == m and (dataset is None or dataset in datasets):
                for key, values in plan.items():
                    values += branch[key]
        return {key: _unique(values) for key, values in plan.items()}

    def jin_figure_panels(self, figure: int) -> dict[str, tuple[str, int]]:
        """{panel label: (recommender, m)} of the estimated P(R) Jin et al.'s Figure
        ``figure`` draws: Figure 1 its recommender at ``jin.m``, Figure 2 every Jin
        recommender at ``jin.m``, Figure 3 its recommender at each of its m (label
        ``n = m + 1``)."""
        jin = self.jin
        if figure == 1:
            rec = jin["figure1"]["recommender"]
            return {rec: (rec, jin["m"])}
        if figure == 2:
            return {rec: (rec, jin["m"]) for rec in jin["recommenders"]}
        rec = jin["figure3"]["recommender"]
        return {f"n = {m + 1}": (rec, m) for m in jin["figure3"]["m_values"]}

    # --- model seeds ----------------------------------------------------------------------

    def model_seeds(self) -> list[int]:
        """``study.model_seeds`` without null (absent, null or ``[null]``: none)."""
        return [s for s in self.study.get("model_seeds") or [] if s is not None]

    def own_seed(self, recommender: str) -> int | None:
        """The catalogue's seed of ``recommender``; None if its fit draws nothing (item-kNN,
        EASE)."""
        return model_seed(self.recommender_spec(recommender))

    def seeded_recommenders(self) -> list[str]:
        """Study recommenders fitted once per model seed (those with a seed)."""
        return [r for r in self.study.get("recommenders") or [] if self.own_seed(r) is not None]

    def seed_plan(self) -> list[tuple[str, int | None]]:
        """(recommender, seed) of every fit the seeds table reads, in the order of
        ``study.recommenders`` and ``study.model_seeds``; seed None for a recommender fitted
        once. A seed equal to the recommender's own (:meth:`own_seed`) is its default fit."""
        return [(r, s) for r in self.study.get("recommenders") or []
                for s in (self.model_seeds() if self.own_seed(r) is not None else [None])]

    # --- the ranks stage ------------------------------------------------------------------

    @property
    def users_per_shard(self) -> int:
        """Evaluated users per ranks job (``ranks.users_per_shard``, else the default)."""
        return (self.config.get("ranks") or {}).get("users_per_shard", DEFAULT_USERS_PER_SHARD)
