# An independent, pure-Python reference of PROTOCOL §2-6 (within-context
# mode, Spearman; no numpy, no shared code with calib). It writes the
# numbers TestCrossCheck and TestCalibratorCrossCheck compare calib against:
#
#   python3 reference.py scores.csv labels.csv order.txt > expected.json
import csv, json, math, sys
S, L, O = sys.argv[1:4]
order = [l.strip() for l in open(O) if l.strip()]
acc = {}
for r in csv.DictReader(open(S)):
    if r['probe'].startswith('neutral:'): continue
    if r['score'].strip() == '': continue
    acc.setdefault((r['context'], r['candidate'], r['probe']), []).append(float(r['score']))
labels = {(r['context'], r['candidate']): float(r['human']) for r in csv.DictReader(open(L))}
probes = {p for _, _, p in acc}
attrs = sorted({p[:-2] for p in probes if p.endswith(':+') or p.endswith(':-')})
cols = [a + s for a in attrs for s in (':+', ':-')] + sorted(p for p in probes if p.startswith('ctx:'))
q = len(cols); K = len(attrs)
scols = ['baseline'] + cols
ctxs = sorted({c for c, _ in labels})
cands = {c: sorted(k for cc, k in labels if cc == c) for c in ctxs}
rows = [(c, k) for c in ctxs for k in cands[c]]
val = {}
for sc in scols:
    have = [sum(acc[(c, k, sc)]) / len(acc[(c, k, sc)]) for c, k in rows if (c, k, sc) in acc]
    m = sum(have) / len(have)
    for c, k in rows:
        a = acc.get((c, k, sc))
        val[(c, k, sc)] = sum(a) / len(a) if a else m
data = {}
for c in ctxs:
    s0 = [val[(c, k, 'baseline')] for k in cands[c]]
    J = []
    for i, k in enumerate(cands[c]):
        row = []
        for col in cols:
            if col.startswith('ctx:'): row.append(val[(c, k, col)] - s0[i])
            elif col.endswith(':+'): row.append(val[(c, k, col)] - s0[i])
            else: row.append(s0[i] - val[(c, k, col)])
        J.append(row)
    n = len(s0)
    y = [labels[(c, k)] for k in cands[c]]
    ms, my = sum(s0) / n, sum(y) / n
    v = [x - ms for x in s0]; cy = [x - my for x in y]
    nv, ny = math.sqrt(sum(x * x for x in v)), math.sqrt(sum(x * x for x in cy))
    ys = [x * nv / ny if ny > 0 else 0 for x in cy]
    means = [sum(J[i][j] for i in range(n)) / n for j in range(q)]
    Jc = [[J[i][j] - means[j] for j in range(q)] for i in range(n)]
    # Half-differences O_k = (dk+ + dk-)/2, centered from O itself.
    O = [[(J[i][2 * k] + J[i][2 * k + 1]) / 2 for k in range(K)] for i in range(n)]
    mo = [sum(O[i][k] for i in range(n)) / n for k in range(K)]
    Oc = [[O[i][k] - mo[k] for k in range(K)] for i in range(n)]
    data[c] = dict(s0=s0, y=y, v=v, ys=ys, Jc=Jc, Oc=Oc)

def solve(A, b):
    n = len(b); M = [A[i][:] + [b[i]] for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(M[r][i])); M[i], M[p] = M[p], M[i]
        for r in range(i + 1, n):
            f = M[r][i] / M[i][i]
            for cc in range(i, n + 1): M[r][cc] -= f * M[i][cc]
    x = [0] * n
    for i in reversed(range(n)):
        x[i] = (M[i][n] - sum(M[i][j] * x[j] for j in range(i + 1, n))) / M[i][i]
    return x

def design(train, method):
    X, t = [], []
    for c in train:
        d = data[c]
        for i in range(len(d['v'])):
            jr = d['Oc'][i] if method == 'half' else d['Jc'][i]
            if method == 'alpha_prism': X.append([d['v'][i]] + [-x for x in jr]); t.append(d['ys'][i])
            else: X.append(jr); t.append(d['v'][i] - d['ys'][i])
    return X, t

def fit(train, method, g):
    X, t = design(train, method)
    p = len(X[0])
    A = [[sum(r[a] * r[b] for r in X) for b in range(p)] for a in range(p)]
    bb = [sum(r[a] * tt for r, tt in zip(X, t)) for a in range(p)]
    off = 1 if method == 'alpha_prism' else 0
    frob = sum(A[a][a] for a in range(off, p))
    mu = g * frob / (p - off)
    for a in range(off, p): A[a][a] += mu
    th = solve(A, bb)
    if method == 'alpha_prism': return th[0], th[1:]
    return 1.0, th

def ranks(x):
    idx = sorted(range(len(x)), key=lambda i: x[i]); r = [0] * len(x); i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and x[idx[j + 1]] == x[idx[i]]: j += 1
        for k in range(i, j + 1): r[idx[k]] = (i + j + 2) / 2
        i = j + 1
    return r

def spearman(a, b):
    ra, rb = ranks(a), ranks(b); m = (len(a) + 1) / 2
    sxy = sum((x - m) * (y - m) for x, y in zip(ra, rb))
    sxx = sum((x - m) ** 2 for x in ra); syy = sum((y - m) ** 2 for y in rb)
    return 0.0 if sxx == 0 or syy == 0 else sxy / math.sqrt(sxx * syy)

# A prediction is a function of the candidate's own row: alpha s0 - Jc.beta
# (prism, alpha_prism) or s0 - Oc.delta (half), summed in column order.
def value(c, alpha, beta, method):
    d = data[c]
    rows = d['Oc'] if method == 'half' else d['Jc']
    pred = [alpha * d['s0'][i] - sum(a * b for a, b in zip(rows[i], beta)) for i in range(len(d['s0']))]
    return spearman(pred, d['y'])

def split(n, k):
    b = [0]
    for f in range(k): b.append(b[-1] + n // k + (1 if f < n % k else 0))
    return b

G = [1e-3, 1e-2, 1e-1, 1, 10, 100, 1000]; B = split(len(order), 5)

# Inner CV on the training contexts train (in order): the CV score of each
# gamma and the chosen one (highest score, exact ties to the largest gamma).
def select(train, method):
    ib = split(len(train), 5); scores = []
    for g in G:
        vals = {}
        for p in range(5):
            part = train[ib[p]:ib[p + 1]]
            if not part: continue
            a, beta = fit(train[:ib[p]] + train[ib[p + 1]:], method, g)
            for c in part: vals[c] = value(c, a, beta, method)
        s = 0.0
        for c in train: s += vals[c]
        scores.append(s / len(train))
    best = 0
    for i in range(len(G)):
        if scores[i] > scores[best] or (scores[i] == scores[best] and G[i] > G[best]): best = i
    return best, scores

out = {'columns': cols, 'methods': {}, 'final': {},
       'means': {sc: sum(sum(acc[(c, k, sc)]) / len(acc[(c, k, sc)]) for c, k in rows if (c, k, sc) in acc) /
                 len([1 for c, k in rows if (c, k, sc) in acc]) for sc in scols}}
for method in ['prism', 'alpha_prism', 'half']:
    per, folds = {}, []
    for f in range(5):
        test = order[B[f]:B[f + 1]]; train = order[:B[f]] + order[B[f + 1]:]
        best, scores = select(train, method)
        a, beta = fit(train, method, G[best])
        for c in test: per[c] = value(c, a, beta, method)
        folds.append({'gamma': G[best], 'alpha': a, 'cv': scores})
    out['methods'][method] = {'per_context': per, 'folds': folds}
    # The calibrator (prism fit --save): gamma by the same inner CV on every
    # context in pi order, then the fit on all of them, and its in-sample
    # predictions per candidate.
    best, scores = select(order, method)
    a, beta = fit(order, method, G[best])
    pred = {}
    for c in ctxs:
        d = data[c]; rws = d['Oc'] if method == 'half' else d['Jc']
        for i, k in enumerate(cands[c]):
            pred[c + '/' + k] = a * d['s0'][i] - sum(x * b for x, b in zip(rws[i], beta))
    out['final'][method] = {'gamma': G[best], 'alpha': a, 'coef': beta, 'cv': scores, 'pred': pred}
out['methods']['vanilla'] = {'per_context': {c: spearman(data[c]['s0'], data[c]['y']) for c in ctxs}}
json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
