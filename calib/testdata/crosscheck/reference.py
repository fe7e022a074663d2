# An independent, pure-Python reference of PROTOCOL §2-6 (within-context
# mode, Spearman; no numpy, no shared code with calib), and of the
# exploration/confirmation protocol of docs/protocol.md §13 (split, fits on
# exploration, pairwise accuracy on confirmation, paired bootstrap; key
# "confirm"). It writes the numbers TestCrossCheck,
# TestCalibratorCrossCheck and TestConfirmCrossCheck compare calib against:
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
def build(mean_ok):
  val = {}
  for sc in scols:
    have = [sum(acc[(c, k, sc)]) / len(acc[(c, k, sc)]) for c, k in rows if (c, k, sc) in acc and mean_ok(c)]
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
  return data
data = build(lambda c: True)

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
    return pairwise(pred, d['y']) if METRIC == 'pairwise' else spearman(pred, d['y'])

# Pairwise accuracy: pairs with unequal human scores count, 1 when the
# prediction orders them the same way, 1/2 when it ties; None without such
# a pair (the context is not eligible).
def pairwise(pred, y):
    credit, pairs = 0.0, 0
    for i in range(len(y)):
        for j in range(i + 1, len(y)):
            if y[i] == y[j]: continue
            pairs += 1
            dp = pred[i] - pred[j]
            if dp == 0: credit += 0.5
            elif (dp > 0) == (y[i] - y[j] > 0): credit += 1
    return credit / pairs if pairs else None

METRIC = 'spearman'

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
        s, cnt = 0.0, 0
        for c in train:
            if vals[c] is not None: s += vals[c]; cnt += 1
        scores.append(s / cnt if cnt else 0.0)
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

# The exploration/confirmation protocol (docs/protocol.md §13) under
# benchmark "crosscheck": SHA-256(benchmark 0x00 context) top bit set ->
# confirmation. Column means over exploration rows only; gamma by the
# inner CV over the exploration contexts in pi order; the fit on all of
# them; pairwise accuracy on the eligible confirmation contexts; the paired
# bootstrap of fit.md (pcg(seed, 1), index (x * n) >> 64, type 7).
import hashlib
BENCH = 'crosscheck'
def confirmation(c): return hashlib.sha256(BENCH.encode() + b'\0' + c.encode()).digest()[0] >= 128
M64 = (1 << 64) - 1
MUL = (2549297995355413924 << 64) | 4865540595714422341
INC = (6364136223846793005 << 64) | 1442695040888963407
def pcg(seed1, seed2):
    st = (seed1 << 64) | seed2
    while True:
        st = (st * MUL + INC) & ((1 << 128) - 1)
        hi, lo = st >> 64, st & M64
        hi ^= hi >> 32; hi = (hi * 0xda942042e4dd58b5) & M64
        hi ^= hi >> 48; hi = (hi * (lo | 1)) & M64
        yield hi
def q7(p, x):
    h = (len(x) - 1) * p; lo = math.floor(h)
    return x[-1] if lo >= len(x) - 1 else x[lo] + (h - lo) * (x[lo + 1] - x[lo])
METRIC = 'pairwise'
full = build(lambda c: not confirmation(c))
explore = [c for c in order if not confirmation(c)]
conf = [c for c in ctxs if confirmation(c)]
eligible = [c for c in conf if pairwise(full[c]['y'], full[c]['y']) is not None]
def restrict(cols_kept):
    attrs_kept = sorted({cols[j][:-2] for j in cols_kept if not cols[j].startswith('ctx:')})
    ks = [attrs.index(a) for a in attrs_kept]
    return {c: dict(d, Jc=[[r[j] for j in cols_kept] for r in d['Jc']], Oc=[[r[k] for k in ks] for r in d['Oc']])
            for c, d in full.items()}, attrs_kept
pools = {'all': list(range(q)),
         'properties': [j for j in range(q) if not cols[j].startswith('ctx:')],
         'one-sided': [j for j in range(q) if cols[j].startswith('ctx:')]}
conf_out = {'benchmark': BENCH, 'exploration': sorted(c for c in ctxs if not confirmation(c)), 'confirmation': conf,
            'eligible': eligible, 'order': explore,
            'eval_pairs': sum(1 for c in eligible for i in range(len(full[c]['y'])) for j in range(i + 1, len(full[c]['y'])) if full[c]['y'][i] != full[c]['y'][j]),
            'vanilla': {c: pairwise(full[c]['s0'], full[c]['y']) for c in eligible}, 'pools': {}}
for name, kept in pools.items():
    data, attrs_kept = restrict(kept)
    po = {'columns': [cols[j] for j in kept]}
    for method in (['prism', 'alpha_prism', 'half'] if attrs_kept else ['prism', 'alpha_prism']):
        best, scores = select(explore, method)
        a, beta = fit(explore, method, G[best])
        po[method] = {'gamma': G[best], 'alpha': a, 'coef': beta, 'cv': scores,
                      'per_context': {c: value(c, a, beta, method) for c in eligible}}
    conf_out['pools'][name] = po
# Paired bootstrap of Vanilla and PRISM on all units: 500 resamples, seed 42.
gen, n, B = pcg(42, 1), len(eligible), 500
van = [conf_out['vanilla'][c] for c in eligible]
pri = [conf_out['pools']['all']['prism']['per_context'][c] for c in eligible]
mv, mp, md = [], [], []
for b in range(B):
    idx = [(next(gen) * n) >> 64 for _ in range(n)]
    sv = sp = 0.0
    for i in idx: sv += van[i]; sp += pri[i]
    mv.append(sv / n); mp.append(sp / n); md.append(sp / n - sv / n)
conf_out['bootstrap'] = {'resamples': B, 'seed': 42,
    'vanilla_ci': [q7(0.025, sorted(mv)), q7(0.975, sorted(mv))],
    'prism_all_ci': [q7(0.025, sorted(mp)), q7(0.975, sorted(mp))],
    'prism_all_diff_ci': [q7(0.025, sorted(md)), q7(0.975, sorted(md))]}
out['confirm'] = conf_out
json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
