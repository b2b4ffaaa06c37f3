"""Smolyakov, Srikant. *Neural Approaches to Question Retrieval*. MIT 6.864 term project, 2017 (seed
``003_6d6226b7de5bc4d3.txt``)."""

from __future__ import annotations

from reproq.papers.lei2016 import ASKUBUNTU
from reproq.papers.paper import Claim, Paper

PAPER = Paper(
    key="smolyakov2017", short="Smolyakov & Srikant 2017",
    citation="Smolyakov, Srikant. *Neural Approaches to Question Retrieval*, MIT 6.864 project, 2017",
    topic="AskUbuntu → Android domain adaptation",
    has="in-domain CNN/BiLSTM; AskUbuntu → Android domain adaptation; AUC and AUC(0.05) (Tables 2, 6, 7, "
        "Figures 8–15)",
    seed_file="003_6d6226b7de5bc4d3.txt",
    # Figures 1-2 in section 3.1 "Dataset" (3-7 are architecture); 8-15 at the end of section 6, discussed in 7
    figures=(("Figure 1", "AskUbuntu dataset description (word-length distribution)"),
             ("Figure 2", "Android dataset description (word-length distribution)"),
             ("Figure 8", "in-domain LSTM and CNN training loss (Experiment 1)"),
             ("Figure 9", "learning-rate schedule (all experiments)"),
             ("Figure 10", "ROC curves, direct transfer TF-IDF/LSTM/CNN (Experiment 2)"),
             ("Figure 11", "TF-IDF score histogram of similar vs dissimilar pairs (Experiment 2)"),
             ("Figure 12", "LSTM and CNN total adversarial training loss (Experiment 2)"),
             ("Figure 13", "discriminator training loss (Experiment 2)"),
             ("Figure 14", "gradient norms of the domain classifier (Experiment 2)"),
             ("Figure 15", "ROC curves of Siamese RNN and doc2vec (Experiment 3)")),
    claims=(Claim("adversarial > direct transfer to Android, LSTM (Table 7)", "LSTM-adversarial", "LSTM-direct",
                  "AUC(0.05)", dict(table="Table 7", dataset="android", split="test")),),
    stand_in={"android": "the Android corpus is not reachable here (its pair files are): the stand-in",
              "askubuntu": ASKUBUNTU},
    notebooks=("00_datasets", "01_lexical_baselines", "03_pooling_body_smolyakov", "09_domain_adaptation"),
)
