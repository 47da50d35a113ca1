"""The floor the dashboard's start is measured against (``benchmarks/bench_dashboard.py``): a plain Streamlit app with
one data frame and one plotly chart, the least any Streamlit dashboard of data and figures draws. It imports what
such an app imports (streamlit, numpy, pandas, plotly) and nothing of mtdiag's."""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="floor", layout="wide")
st.title("Overview")
scores = pd.DataFrame(np.random.default_rng(0).uniform(0, 100, (10, 8)),
                      index=pd.Index([f"system-{i}" for i in range(10)], name="system"),
                      columns=["OTEM", "UTEM", "WAFT", "NEVA", "BLEU", "chrF", "TER", "length ratio"])
st.dataframe(scores)
st.plotly_chart(go.Figure(go.Bar(x=scores.index, y=scores["chrF"])))
