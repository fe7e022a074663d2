package offline

import (
	"context"
	"math"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

const article = "Barcelona president Josep Maria Bartomeu said on Tuesday that the club has no plans to replace coach Luis Enrique. " +
	"The La Liga leaders are very happy with him, Bartomeu told reporters in Madrid. " +
	"Enrique signed a two-year contract in 2014 and has won 24 of his 30 league matches. " +
	"Some fans had called for his dismissal after a 1-0 defeat to Malaga in February. " +
	"However, the team has since won nine games in a row. " +
	"Bartomeu also said that Lionel Messi will stay at the club until 2018. " +
	"The president praised the squad and the medical staff. " +
	"He added that the board will meet again in June to discuss the budget for next season."

// showcase holds, per feature, a text built to show it (high) and one
// built to lack it (low), both about the article above.
var showcase = map[Feature][2]string{
	Length: {
		"Barcelona president Josep Maria Bartomeu said the club has no plans to replace coach Luis Enrique. Enrique has won 24 of his 30 league matches since he signed in 2014. Fans had called for his dismissal after a defeat to Malaga, but the team has since won nine games in a row. Bartomeu also said Lionel Messi will stay until 2018.",
		"Barcelona keeps Enrique.",
	},
	Coverage: {
		"Barcelona president Bartomeu said the club will not replace coach Enrique.",
		"The medical staff were praised and the budget is due in June.",
	},
	Extractiveness: {
		"The La Liga leaders are very happy with him, Bartomeu told reporters in Madrid.",
		"Speaking to journalists in the capital, Bartomeu declared the table-toppers content with their manager.",
	},
	Lead: {
		"Barcelona president Bartomeu has no plans to replace coach Luis Enrique, reporters heard.",
		"The board will meet in June to discuss the budget, and the squad and medical staff were praised.",
	},
	Repetition: {
		"Barcelona will keep Enrique. Barcelona will keep Enrique as coach. Enrique stays at Barcelona as coach.",
		"Barcelona will keep Enrique as coach after a run of nine straight wins.",
	},
	Specificity: {
		"Bartomeu said Enrique, with 24 wins in 30 matches since 2014, stays; Messi stays until 2018.",
		"The club's leader said that the current coach will remain in his job for now.",
	},
	Grounding: {
		"Barcelona president Bartomeu said the club has no plans to replace coach Enrique.",
		"Barcelona plans a summer tour of Tokyo with dolphins, sushi chefs and a jazz orchestra.",
	},
	Accuracy: {
		"Enrique has won 24 of his 30 league matches since signing in 2014.",
		"Enrique has won 51 of his 77 league matches since signing in 1999 under Guardiola.",
	},
	Fluency: {
		"Barcelona's president said the club does not plan to replace Enrique.",
		"barcelona president say club do n't plan replace enrique , fans angry . . messi stay 2018",
	},
	Coherence: {
		"The club backs Enrique. However, fans were angry after a defeat. Since then, the team has won nine games.",
		"Enrique stays. Fans had called for his dismissal after the one-nil defeat to Malaga back in February this year before a long winning run began in the league. Messi.",
	},
	Polish: {
		"Bartomeu emphatically reaffirmed Barcelona's unwavering confidence in Enrique's stewardship.",
		"The boss said he is ok with the man and he is ok to stay and the man is ok.",
	},
	Confidence: {
		"Barcelona will keep Enrique as coach and Messi will stay until 2018.",
		"Barcelona may perhaps keep Enrique, and Messi reportedly might possibly stay until 2018.",
	},
	Structure: {
		"Barcelona news:\n- Enrique stays as coach.\n- Messi stays until 2018.\n- The board meets in June.",
		"Enrique stays as coach, Messi stays until 2018 and the board meets in June.",
	},
	Engagement: {
		"\"Very happy!\" Bartomeu insists Enrique stays, despite 24 wins in 30 games drawing fans' fury?",
		"The president of the club said that the coach of the club will stay at the club.",
	},
	Helpfulness: {
		"Barcelona president Josep Maria Bartomeu said the club has no plans to replace coach Luis Enrique, who has won 24 of 30 league matches. Messi will stay until 2018.",
		"Football.",
	},
	Safety: {
		"Barcelona will keep Enrique as coach, the president said.",
		"Barcelona will keep Enrique as coach, though one stupid rumour said otherwise, the president said.",
	},
	Formality: {
		"The president confirmed that the administration retains complete confidence in the coach.",
		"Yeah, the boss says they're gonna keep the coach, it's cool, no big stuff.",
	},
	Dialogue: {
		"\"We are very happy with him,\" said Bartomeu. \"He stays,\" he added.",
		"Bartomeu said the club was happy with the coach and that he would stay.",
	},
	FirstPerson: {
		"I think we should keep him; my view is that our coach has earned it.",
		"The club will keep the coach, who has earned it.",
	},
	Question: {
		"Will Enrique stay? Does the board agree? Bartomeu says yes.",
		"Enrique will stay. The board agrees with Bartomeu.",
	},
	Enthusiasm: {
		"Great news! Enrique stays! What an amazing run of wins!",
		"Enrique stays after a run of wins.",
	},
	Opinion: {
		"I think Enrique should stay. In my opinion the fans are wrong.",
		"Enrique will stay. Some fans disagreed with the decision.",
	},
	Steps: {
		"First, the fans protested. Then the team won nine games. Next, the president spoke. Finally, Enrique stayed.",
		"Enrique stayed after the team won nine games.",
	},
	Notation: {
		"Wins/matches = 24/30 = 0.8; `ratio = w / m`.",
		"Enrique won most of his league matches.",
	},
	SelfCheck: {
		"He won 24 of 30 matches; check: 24 + 6 losses or draws = 30, so the count is confirmed.",
		"He won 24 of 30 matches.",
	},
	FinalResult: {
		"After weighing the record, the answer is that Enrique stays.",
		"The record was weighed at length by the board.",
	},
	SentenceLength: {
		"Barcelona president Josep Maria Bartomeu told reporters in Madrid on Tuesday that the club has no plans whatsoever to replace coach Luis Enrique, who has won most of his league matches.",
		"Enrique stays. Fans were angry. The team won. Messi stays.",
	},
	Pace: {
		"Fans protested. Then the team won. Suddenly the mood turned. Soon Enrique was safe.",
		"Over the course of a long and rather uneventful season, the club's president, in measured terms, reaffirmed his support for the coach.",
	},
	Description: {
		"In the room, a long table stood by the window; the door and the wall were grey.",
		"Enrique won, and then the president spoke, and then the fans left.",
	},
	Sensory: {
		"The stadium was loud; fans heard the whistle, smelled smoke and felt the cold rain.",
		"The club kept the coach after the meeting.",
	},
	Humor: {
		"Bartomeu joked that even the goalposts laughed at the rumours, a funny and silly saga.",
		"Bartomeu said the rumours about the coach were not accurate.",
	},
	Darkness: {
		"Fans screamed in fear as the dark night fell, with blood and death on their minds.",
		"Fans cheered as the team won again on a sunny afternoon.",
	},
	Ending: {
		"The saga was over, and at last Enrique was safe.",
		"The board will meet in June and the talks continue",
	},
	Characters: {
		"Bartomeu met Enrique, Messi, Suarez and Neymar with Pique.",
		"The president met the coach and the players.",
	},
	Vocabulary: {
		"Bartomeu's unequivocal endorsement dispelled speculation surrounding Enrique's precarious tenure.",
		"The man said the man will stay and the man will stay at the club.",
	},
}

// tableClauses are the attribute clauses of the paper's Table 18 (quality
// and style banks).
var tableClauses = map[string]Feature{
	"whether the summary’s claims are factually correct":                     Accuracy,
	"whether the summary’s claims are supported by the source article":       Grounding,
	"how much of the article’s important content the summary includes":       Coverage,
	"how well-organised the summary is and how it flows":                     Coherence,
	"the grammar, spelling and word choice of the summary":                   Fluency,
	"how engaging the summary is to read":                                    Engagement,
	"how well the summary would serve a reader in place of the article":      Helpfulness,
	"whether the summary is free of harmful or inappropriate content":        Safety,
	"how long the summary is":                                                Length,
	"how many concrete names, numbers and figures the summary cites":         Specificity,
	"how closely the summary follows the article’s opening":                  Lead,
	"how polished and eloquent the writing is":                               Polish,
	"how much the summary restates its own points":                           Repetition,
	"how assertive and unhedged the summary’s wording is":                    Confidence,
	"how much the summary reuses the article’s own wording":                  Extractiveness,
	"how much visible structure the summary uses, such as lists or headings": Structure,
}

func plus(clause string) string {
	return "When you assign the score, weight " + clause + " more heavily than you normally would."
}
func minus(clause string) string {
	return "Let " + clause + " count for less than usual in the score you give."
}

func mustJudge(t testing.TB, mode judge.Mode, repeats int) *Judge {
	t.Helper()
	j, err := New(judge.Config{Backend: judge.BackendOffline, Mode: mode, Repeats: repeats})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func score(t testing.TB, j *Judge, cand, instr string, sc banks.Scale) judge.Result {
	t.Helper()
	r, err := j.Score(context.Background(), banks.Request{Source: article, CandidateText: cand, Instruction: instr, Scale: sc})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var ten = banks.Scale{Min: 1, Max: 10}

func TestTableClausesMap(t *testing.T) {
	for clause, want := range tableClauses {
		got, ok := FeatureNamed(clause)
		if !ok || got != want {
			t.Errorf("%q maps to %v (%v), want %v", clause, got, ok, want)
		}
		for _, instr := range []string{plus(clause), minus(clause)} {
			e := parseInstruction(instr)
			if len(e.terms) != 1 || e.terms[0].feature != want {
				t.Errorf("%q parses to %+v, want one term on %v", instr, e, want)
			}
		}
	}
}

func TestShowcaseFeatures(t *testing.T) {
	for f, pair := range showcase {
		hi, lo := FeaturesOf(article, pair[0]), FeaturesOf(article, pair[1])
		if hi[f]-lo[f] < 0.15 {
			t.Errorf("%v: high text %.3f, low text %.3f; want a gap ≥ 0.15", f, hi[f], lo[f])
		}
	}
	if len(showcase) != int(numFeatures) {
		t.Errorf("showcase covers %d of %d features", len(showcase), numFeatures)
	}
}

// TestProbeDirection: for every attribute clause, "more weight" raises the
// text built to show the feature relative to the one built to lack it,
// and "less weight" lowers it, in both score modes.
func TestProbeDirection(t *testing.T) {
	for _, mode := range []judge.Mode{judge.ModeExpected, judge.ModeInteger} {
		j := mustJudge(t, mode, 8)
		sc := ten
		if mode == judge.ModeInteger {
			sc = banks.Scale{Min: 0, Max: 100} // enough resolution to see each probe through rounding
		}
		for clause, f := range tableClauses {
			pair := showcase[f]
			gap := func(instr string) float64 {
				return score(t, j, pair[0], instr, sc).Score - score(t, j, pair[1], instr, sc).Score
			}
			g0, gp, gm := gap(""), gap(plus(clause)), gap(minus(clause))
			if !(gp > g0) {
				t.Errorf("%s %v: more weight moved the high−low gap %.3f → %.3f, want up", mode, f, g0, gp)
			}
			if !(gm < g0) {
				t.Errorf("%s %v: less weight moved the high−low gap %.3f → %.3f, want down", mode, f, g0, gm)
			}
		}
	}
}

func TestStrengthAndAsymmetry(t *testing.T) {
	j := mustJudge(t, judge.ModeExpected, 40) // 40 repeats average the call noise out
	clause := tableClauses2(Length)
	hi := showcase[Length][0]
	s0 := score(t, j, hi, "", ten).Score
	d := func(instr string) float64 { return score(t, j, hi, instr, ten).Score - s0 }
	slight := d("When you assign the score, weight " + clause + " slightly more heavily than you normally would.")
	normal := d(plus(clause))
	much := d("When you assign the score, weight " + clause + " much more heavily than you normally would.")
	if !(slight > 0.05 && normal > slight && much > normal) {
		t.Errorf("length probe on a long text: slightly %.3f, more %.3f, much %.3f; want 0.05 < slightly < more < much", slight, normal, much)
	}
	less := d(minus(clause))
	// Δ+ = s+ − s0 and Δ− = s0 − s−: asymmetric, so the shared part
	// (Δ+ − Δ−)/2 is not zero.
	if shared := (normal - (-less)) / 2; math.Abs(shared) < 0.02 {
		t.Errorf("shared component %.4f: more %.3f, less %.3f; want |shared| ≥ 0.02", shared, normal, less)
	}
}

func tableClauses2(f Feature) string {
	for c, g := range tableClauses {
		if g == f {
			return c
		}
	}
	return ""
}

func TestDeterminismAndRepeatNoise(t *testing.T) {
	cand := showcase[Coverage][0]
	for _, mode := range []judge.Mode{judge.ModeExpected, judge.ModeInteger} {
		a := score(t, mustJudge(t, mode, 12), cand, "", ten)
		b := score(t, mustJudge(t, mode, 12), cand, "", ten)
		distinct := map[float64]bool{}
		for i := range a.Samples {
			if a.Samples[i].Score != b.Samples[i].Score {
				t.Fatalf("%s: rerun differs at repeat %d: %v vs %v", mode, i, a.Samples[i].Score, b.Samples[i].Score)
			}
			distinct[a.Samples[i].Score] = true
		}
		if len(distinct) < 2 {
			t.Errorf("%s: 12 repeats all gave %v; want call noise", mode, a.Samples[0].Score)
		}
		var sum float64
		for _, s := range a.Samples {
			sum += s.Score
		}
		if math.Abs(sum/12-a.Score) > 1e-12 {
			t.Errorf("%s: Score %v is not the mean of the samples %v", mode, a.Score, sum/12)
		}
	}
	seed := 3
	j2, _ := New(judge.Config{Mode: judge.ModeExpected, Repeats: 1, Seed: &seed})
	if score(t, j2, cand, "", ten).Score == score(t, mustJudge(t, judge.ModeExpected, 1), cand, "", ten).Score {
		t.Error("a different seed gave the same noise")
	}
}

// TestNeutralClauses: neutral, control and unknown instructions move the
// score only by call noise, far less than a real probe.
func TestNeutralClauses(t *testing.T) {
	j := mustJudge(t, judge.ModeExpected, 1)
	neutral := []string{
		"Take your time and weigh each candidate fairly.",
		"Read the whole text before you answer.",
		"When you assign the score, weight the colour of the moon exactly as heavily as you normally would.",
		"When you assign the score, weight the colour of the moon more heavily than you normally would.",
	}
	var nss, pss float64
	n := 0
	for f, pair := range showcase {
		for _, cand := range pair {
			s0 := score(t, j, cand, "", ten).Score
			for _, instr := range neutral {
				d := score(t, j, cand, instr, ten).Score - s0
				if math.Abs(d) > 0.5 {
					t.Errorf("%q moved %.50q by %.3f", instr, cand, d)
				}
				nss += d * d
				n++
			}
			d := score(t, j, cand, plus(tableClauses2(f)), ten).Score - s0
			pss += d * d
		}
	}
	nr, pr := math.Sqrt(nss/float64(n)), math.Sqrt(pss/float64(2*len(showcase)))
	if nr > 0.15 || pr < 3*nr {
		t.Errorf("neutral RMS %.3f, probe RMS %.3f; want neutral ≤ 0.15 and probe ≥ 3× neutral", nr, pr)
	}
}

func TestScalesAndModes(t *testing.T) {
	cand := showcase[Length][0]
	for _, sc := range []banks.Scale{{Min: 1, Max: 10}, {Min: 0, Max: 100}, {Min: 0, Max: 4}, {Min: -3, Max: 3}} {
		for _, mode := range []judge.Mode{judge.ModeExpected, judge.ModeInteger} {
			r := score(t, mustJudge(t, mode, 3), cand, "", sc)
			for _, s := range r.Samples {
				if s.Score < float64(sc.Min) || s.Score > float64(sc.Max) {
					t.Errorf("%s %v: score %v outside the scale", mode, sc, s.Score)
				}
				if mode == judge.ModeInteger && s.Score != math.Round(s.Score) {
					t.Errorf("integer mode gave %v", s.Score)
				}
				if mode == judge.ModeExpected && s.ProbMass != 1 {
					t.Errorf("expected mode mass %v, want 1", s.ProbMass)
				}
			}
		}
	}
}

func TestBatchPositionsAndOrders(t *testing.T) {
	j := mustJudge(t, judge.ModeExpected, 1)
	texts := []string{showcase[Length][0], showcase[Coverage][0], showcase[Length][1], showcase[Safety][1]}
	ids := []string{"a", "b", "c", "d"}
	render := func(order []int) (banks.Request, error) {
		r := banks.Request{Source: article, Scale: ten}
		for _, i := range order {
			r.BatchIDs = append(r.BatchIDs, ids[i])
			r.BatchTexts = append(r.BatchTexts, texts[i])
		}
		return r, nil
	}
	bs, err := judge.ScoreBatch(context.Background(), j, 4, 4, render)
	if err != nil {
		t.Fatal(err)
	}
	// Position bias: candidate 0 is scored higher when shown first (order
	// 0) than when shown last (order 1 puts it at position 3).
	if !(bs.PerOrder[0][0] > bs.PerOrder[1][0]) {
		t.Errorf("no primacy effect: first %v, last %v", bs.PerOrder[0][0], bs.PerOrder[1][0])
	}
	for i := range texts {
		if bs.Scored[i] != 4 {
			t.Errorf("candidate %d scored in %d of 4 orders", i, bs.Scored[i])
		}
		// The order effects interact with the neighbours shown
		// (batched.go): a candidate's score moves from order to order by
		// more than the call noise (σ ≈ 0.06 in expected mode).
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, row := range bs.PerOrder {
			lo, hi = math.Min(lo, row[i]), math.Max(hi, row[i])
		}
		if hi-lo < 0.2 {
			t.Errorf("candidate %d: scores over 4 orders span only %.3f", i, hi-lo)
		}
	}
}

func TestNameSaysSimulator(t *testing.T) {
	if got := mustJudge(t, judge.ModeInteger, 1).Name(); got != "offline (simulator)" {
		t.Errorf("Name() = %q", got)
	}
}

func TestBadInput(t *testing.T) {
	j := mustJudge(t, judge.ModeInteger, 1)
	if _, err := j.Score(context.Background(), banks.Request{Scale: banks.Scale{Min: 5, Max: 5}}); judge.KindOf(err) != judge.KindConfig {
		t.Errorf("empty scale: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := j.Score(ctx, banks.Request{Scale: ten}); judge.KindOf(err) != judge.KindCanceled {
		t.Errorf("canceled: %v", err)
	}
	// An empty candidate still scores (low), it does not panic.
	if r := score(t, j, "", "", ten); !r.HasScore {
		t.Error("empty candidate got no score")
	}
	if _, err := New(judge.Config{Backend: "openai"}); judge.KindOf(err) != judge.KindConfig {
		t.Errorf("wrong backend: %v", err)
	}
}
