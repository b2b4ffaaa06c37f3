"""Lei, Joshi, Barzilay, Jaakkola, Tymoshenko, Moschitti, Màrquez. *Semi-supervised Question Retrieval with Gated
Convolutions*. NAACL 2016 (seed ``000_1eb555c2ca15b20a.txt``)."""

from __future__ import annotations

from reproq.papers.paper import Claim, Paper

ASKUBUNTU = ("the AskUbuntu corpus is not reachable here: the synthetic stand-in (the same notebook runs on the real "
             "data for a user who has it)")

PAPER = Paper(
    key="lei2016", short="Lei et al. 2016",
    citation="Lei, Joshi, Barzilay, Jaakkola, Tymoshenko, Moschitti, Màrquez. *Semi-supervised Question Retrieval "
             "with Gated Convolutions*, NAACL 2016",
    topic="semi-supervised question retrieval with gated convolutions (AskUbuntu)",
    has="AskUbuntu; BM25 / TF-IDF / SVM; CNN, LSTM, GRU, RCNN encoders; encoder-decoder pre-training "
        "(Tables 1–5, Figures 3–5)",
    seed_file="000_1eb555c2ca15b20a.txt",
    # section 7 "Results", paragraphs "Pre-training" and "Adaptive Decay" (Figures 1-2 are an example pair and the
    # model diagram)
    figures=(("Figure 3", "heldout perplexity vs dev MRR during encoder-decoder pre-training"),
             ("Figure 4", "scalar-decay gate 1 - lambda_t shown over words of example questions"),
             ("Figure 5", "max and mean of the 400-d gate 1 - lambda_t per word position, dev+test")),
    claims=(Claim("RCNN > LSTM on AskUbuntu (Table 2)", "RCNN", "LSTM", "MAP",
                  dict(table="Table 2", dataset="askubuntu", split="test")),),
    stand_in={"askubuntu": ASKUBUNTU},
    notebooks=("00_datasets", "01_lexical_baselines", "02_lei_neural_encoders", "03_pooling_body_smolyakov",
               "07_lei_gates", "08_lei_pretraining"),
)
