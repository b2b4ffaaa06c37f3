"""Ids, per-epoch negative sampling and scoring for the AskUbuntu question encoder."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from reproq.data.askubuntu import EvalQuery, Question, TrainQuery
from reproq.data.vocab import Vocabulary
from reproq.models import build_encoder
from reproq.models.embedding import TokenEncoder, WordEmbedding
from reproq.models.question import QuestionEncoder, QuestionEncoderConfig
from reproq.question_retrieval.batches import (candidate_scores, encode_corpus, encode_questions, training_batches,
                                      training_groups)

WORDS = [f"w{i}" for i in range(30)]
CORPUS = {str(i): Question(str(i), (WORDS[i % 30], "zzz", WORDS[(i * 7) % 30]),
                           tuple(WORDS[(i * k) % 30] for k in range(1, 3 + i % 5))) for i in range(60)}
VOCAB = Vocabulary(WORDS)


def test_unknown_words_are_dropped_and_lengths_cut():
    corpus = encode_corpus(CORPUS, VOCAB, max_title_len=1, max_body_len=2)
    assert corpus.titles["1"] == [VOCAB.index["w1"]]  # "zzz" has no vector: dropped before the cut
    assert all(len(b) <= 2 for b in corpus.bodies.values())
    assert encode_corpus(CORPUS, VOCAB, max_body_len=None).titles["1"] == [VOCAB.index["w1"], VOCAB.index["w7"]]


def test_training_groups_follow_rcnn_read_annotations():
    train = [TrainQuery("1", ("2",), ("3", "4")), TrainQuery("5", (), ("6",)),
             TrainQuery("7", tuple(str(i) for i in range(10, 21)), ("8",)), TrainQuery("999", ("2",), ("3",)),
             TrainQuery("9", ("2", "777"), ("3", "888"))]
    groups = training_groups(train, CORPUS, max_positives=10)
    assert [g.query for g in groups] == ["1", "9"]  # no positive / 11 positives / unknown query: skipped
    assert groups[1].positives == ("2",) and groups[1].randoms == ("3",)


GROUPS = training_groups([TrainQuery(str(q), (str(q + 1), str(q + 2)), tuple(str(r) for r in range(20, 45)))
                          for q in range(0, 12, 3)] + [TrainQuery("15", ("16",), ("20", "16", "21"))], CORPUS)


def epoch(e, seed=0, **kw):
    corpus = encode_corpus(CORPUS, VOCAB)
    return list(training_batches(GROUPS, corpus, epoch=e, seed=seed, n_negatives=20, queries_per_batch=2, **kw))


def test_negatives_are_resampled_each_epoch_and_repeat_with_the_seed():
    same = [b.pairs.tolist() for b in epoch(3)]
    assert same == [b.pairs.tolist() for b in epoch(3)]
    assert same != [b.pairs.tolist() for b in epoch(4)]
    assert same != [b.pairs.tolist() for b in epoch(3, seed=1)]


def test_pairs_hold_query_positive_and_the_groups_negatives():
    batches = epoch(1)
    assert len(batches) == 3  # 5 groups, 2 a batch
    real_negatives = []
    for b in batches:
        assert b.pairs.max() < b.title.shape[0] == b.body.shape[0]
        for pair, mask in zip(b.pairs.tolist(), b.negatives_mask.tolist()):
            query, positive, negatives = pair[0], pair[1], [n for n, m in zip(pair[2:], mask) if m]
            assert positive not in negatives and query not in negatives
            real_negatives.append(len(negatives))
    # four groups with 2 positives and 20 of their 25 randoms; the last: 1 positive, randoms 20 and 21
    assert sorted(real_negatives) == [2] + [20] * 8


def test_a_drawn_positive_becomes_a_positive():
    corpus = encode_corpus(CORPUS, VOCAB)
    group = training_groups([TrainQuery("15", ("16",), ("20", "16"))], CORPUS)
    (batch,) = training_batches(group, corpus, epoch=1, seed=0)
    assert batch.pairs.shape == (1, 3)  # query, positive 16, negative 20 (16 was drawn but is similar)


def test_max_queries_limits_an_epoch():
    assert sum(len(b.pairs) for b in epoch(1, max_queries=1)) == 2


def model():
    torch.manual_seed(0)
    vectors = torch.randn(len(VOCAB), 5)
    vectors[0] = 0
    enc = TokenEncoder(WordEmbedding(vectors), build_encoder("rcnn", input_dim=5, hidden_dim=6))
    return QuestionEncoder(enc, QuestionEncoderConfig(dropout=0.0)).eval()


def test_encodings_do_not_depend_on_the_batch():
    corpus, m = encode_corpus(CORPUS, VOCAB), model()
    ids = list(CORPUS)[:25]
    big = encode_questions(m, corpus, ids, device="cpu", batch_size=64)
    one = encode_questions(m, corpus, ids, device="cpu", batch_size=1)
    for q in ids:
        torch.testing.assert_close(big[q], one[q], rtol=1e-5, atol=1e-6)


def test_candidate_scores_are_cosines_in_candidate_order():
    corpus, m = encode_corpus(CORPUS, VOCAB), model()
    queries = [EvalQuery("3", ("4",), ("4", "9", "1"), (3.0, 2.0, 1.0))]
    (scores,) = candidate_scores(m, corpus, queries, device="cpu")
    v = encode_questions(m, corpus, ["3", "4", "9", "1"], device="cpu")
    assert scores.shape == (3,) and scores.dtype == np.float64
    np.testing.assert_allclose(scores, [float(v[c] @ v["3"]) for c in ("4", "9", "1")], rtol=1e-5)
    assert np.all(np.abs(scores) <= 1 + 1e-6)


def test_an_evaluation_pass_encodes_each_distinct_question_once():
    """Issue 56 item 3: queries that share candidates, and a query that is another's candidate, cost one
    encoding each per pass (the repeats left are across passes: new weights each epoch, dev then test)."""
    corpus, m = encode_corpus(CORPUS, VOCAB), model()
    queries = [EvalQuery("3", ("4",), ("4", "9", "1", "7"), (4.0, 3.0, 2.0, 1.0)),
               EvalQuery("9", ("3",), ("3", "4", "1", "12"), (4.0, 3.0, 2.0, 1.0)),
               EvalQuery("4", ("9",), ("9", "7", "3", "1"), (4.0, 3.0, 2.0, 1.0))]
    encoded: list[int] = []
    forward = m.forward

    def counted(title, *rest):
        encoded.append(len(title))
        return forward(title, *rest)

    m.forward = counted
    candidate_scores(m, corpus, queries, device="cpu")
    assert sum(encoded) == len({"3", "4", "9", "1", "7", "12"})


def test_bad_pooling_is_refused_early():
    with pytest.raises(ValueError):
        QuestionEncoderConfig(pooling="sum")
