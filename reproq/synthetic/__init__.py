"""A deterministic synthetic stand-in for the AskUbuntu and Android files, in their exact formats.

The real AskUbuntu corpus, training file and vectors, and the Android corpus, cannot always be had; the
notebooks then run on this stand-in, read by the same readers (:mod:`reproq.data.askubuntu`). Its
numbers reproduce no paper; it exists so that every step runs and so that ranking is learnable but not
trivial. The latent structure:

- a *concept* has several surface words (synonyms); its words' vectors are its random centre plus
  noise, so synonyms lie close together; filler and common words get random vectors;
- an *intent* is a small set of concepts; similar questions (duplicates) share an intent, and each
  question picks its own surface word per concept, so word overlap is only partly informative;
- a body mixes its intent's concepts with concepts of other intents and with filler words; a title is
  short and drawn from the body's intent concepts, so titles summarise bodies;
- Android uses its own surface words for a share of the concepts and its own filler, and (with
  ``android_topic_shift``) asks about its concepts in other proportions, so a model trained on AskUbuntu transfers
  partly (:func:`domain_shift` measures the planted shift). With the real Android pair files at hand the Android
  corpus is written for exactly their ids, a query and its positives sharing an intent: the real evaluation
  structure with synthetic text (:class:`PairStructure`). The lexicon (words and vectors) depends on the seed and the
  lexicon fields, not on the domain, and the vector file covers both domains' words, like a
  general-purpose embedding.

*Key phrases* (``key_phrase_len > 0``; off by default, and with them off the files are those of generator version 3)
plant the structure Lei et al. argue from (§1, §7 Figure 4: "the gate picks out application names and quoted error
messages"): every intent gets an ordered phrase of ``key_phrase_len`` *name* words (say, a program's name or an error
message); the body buries it, contiguous, once or twice among its detail, and the title summarises the body: the
phrase, in order, among the title's concept and common words. With ``twin_intents`` intents come in pairs with the
same concepts and the same name words, the second's phrase in another order (rotated by one word): a bag of words
cannot tell twins apart, only word order can. :data:`KEY_PHRASES` turns both on; :func:`key_phrases` tells which
phrase each question carries (the oracle the tests compare a bag-of-words cosine with).

With the defaults the dev set looks like the real one (measured over seeds 0-3): 4.5-6.3 positives
among 20 candidates (real 5.9), 7-16% of queries with none (real 5.5%), MAP 0.36-0.43 for a random
ranking (real 0.41) and 0.44-0.52 for BM25 (real 0.52), while the cosine of mean title word vectors
reaches 0.78-0.81: the vectors carry what word overlap misses. Files are byte-identical for equal
configs (gzip with mtime 0 and no file name in the header).

The package: :mod:`~reproq.synthetic.config` (the knobs), :mod:`~reproq.synthetic.text` (words, vectors,
intents, questions), :mod:`~reproq.synthetic.writers` (the files of each dataset, and the cache).
"""


from reproq.synthetic.config import (COMPLETE, DOMAINS, GENERATOR_VERSION, KEY_PHRASES, PairStructure,
                                          SyntheticConfig, config_id)
from reproq.synthetic.text import domain_shift, word_kinds
from reproq.synthetic.writers import key_phrases, materialize, write_android, write_askubuntu

__all__ = ["COMPLETE", "DOMAINS", "GENERATOR_VERSION", "KEY_PHRASES", "PairStructure", "SyntheticConfig", "config_id",
           "domain_shift", "key_phrases", "materialize", "word_kinds", "write_android", "write_askubuntu"]
