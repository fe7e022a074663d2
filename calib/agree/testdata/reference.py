# Reference values of calib/agree's tests: run with a Python that has scipy and
# scikit-learn (Debian bookworm: python3-scipy 1.10.1, python3-sklearn 1.2.1).
# kripp is an independent, general implementation of Krippendorff's alpha
# (coincidence matrix, any number of coders, missing values); it first
# reproduces the worked example of Krippendorff (2011), "Computing
# Krippendorff's alpha-reliability": ordinal 0.815, interval 0.849.
import numpy as np
from scipy import stats
from sklearn.metrics import cohen_kappa_score
nan=float('nan')
def kripp(data, metric):
    # data: coders x units, nan missing. General coincidence-matrix alpha (Krippendorff 2011).
    data=np.array(data,dtype=float)
    vals=sorted(set(v for v in data.flatten() if not np.isnan(v)))
    idx={v:i for i,v in enumerate(vals)}
    V=len(vals); o=np.zeros((V,V))
    for u in range(data.shape[1]):
        col=[v for v in data[:,u] if not np.isnan(v)]
        m=len(col)
        if m<2: continue
        for a in range(m):
            for b in range(m):
                if a!=b: o[idx[col[a]],idx[col[b]]]+=1/(m-1)
    nc=o.sum(axis=1); n=nc.sum()
    def d2(c,k):
        if metric=='interval': return (vals[c]-vals[k])**2
        if metric=='ordinal':
            lo,hi=min(c,k),max(c,k)
            return (sum(nc[lo:hi+1])-(nc[c]+nc[k])/2)**2
    Do=sum(o[c,k]*d2(c,k) for c in range(V) for k in range(V))/n
    De=sum(nc[c]*nc[k]*d2(c,k) for c in range(V) for k in range(V))/(n*(n-1))
    return 1-Do/De
K=[[1,2,3,3,2,1,4,1,2,nan,nan,nan],[1,2,3,3,2,2,4,1,2,5,nan,3],[nan,3,3,3,2,3,4,2,2,5,1,nan],[1,2,3,3,2,4,4,1,2,5,1,nan]]
print("paper example ordinal %.4f interval %.4f"%(kripp(K,'ordinal'),kripp(K,'interval')))
p=[1,2,2,4]; h=[1,3,2,2]
print("within A spearman %.15g kendall %.15g"%(stats.spearmanr(p,h)[0], stats.kendalltau(p,h)[0]))
x=[3,1,4,1,5,9,2,6,5,3,5,8]; y=[2,7,1,8,2,8,1,8,2,8,4,5]
print("global pearson %.15g spearman %.15g kendall %.15g"%(stats.pearsonr(x,y)[0],stats.spearmanr(x,y)[0],stats.kendalltau(x,y)[0]))
a=[1,2,3,4,5,3,2,4,1,5,3,3]; b=[1,3,3,4,4,2,2,5,2,5,3,1]
print("qwk %.15g"%cohen_kappa_score(a,b,weights='quadratic'))
print("alpha int %.15g ord %.15g"%(kripp([a,b],'interval'),kripp([a,b],'ordinal')))
fa=[1.5,2,3.25,4,4.5,2.5]; fb=[1,2.5,3,4.5,4,2]
print("alpha nonint int %.15g ord %.15g"%(kripp([fa,fb],'interval'),kripp([fa,fb],'ordinal')))
