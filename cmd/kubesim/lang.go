package main

import (
	"flag"

	"github.com/kubesim/kubesim/scenario"
)

// langFlag adds --lang to a command that shows a scenario's notes: the
// course kubesim teaches from is Chinese. A value other than en
// or zh is a usage error from the flag package, with the command's usage.
func langFlag(fs *flag.FlagSet) *scenario.Lang {
	lang := scenario.English
	fs.Var(langValue{&lang}, "lang", "language of the notes and of the stepper's own lines: `en|zh` (the trace stays as the API writes it)")
	return &lang
}

// langValue is --lang's flag.Value.
type langValue struct{ lang *scenario.Lang }

func (v langValue) String() string {
	if v.lang == nil {
		return ""
	}
	return string(*v.lang)
}

func (v langValue) Set(s string) error {
	l, err := scenario.ParseLang(s)
	if err != nil {
		return err
	}
	*v.lang = l
	return nil
}

// words are the lines demo and the stepper print around a scenario, in
// one language. The trace, the step titles' API words and the
// explanations of `?` are not among them: they name what the API wrote.
type words struct {
	// stepHelp lists the stepper's keys.
	stepHelp string
	// steppingThrough is printed first: the file, the scenario's name and
	// its number of steps.
	steppingThrough string
	// next announces a step: its number, the number of steps, its title.
	next string
	// noAdmission answers `a` when no write was changed or refused.
	noAdmission string
	// unknownCommand: the command typed, then stepHelp.
	unknownCommand string
	bye            string
	// failed and over end a stepped scenario (over: the number of steps).
	failed, over string
	// pressEnter is demo --step's pause.
	pressEnter string
	// demoFailed is the demo's error when its scenario fails.
	demoFailed string
	// demoEnd is the demo's last lines: the number of trace entries.
	demoEnd string
}

// wordsFor returns the words of lang (English for anything else).
func wordsFor(lang scenario.Lang) words {
	if lang == scenario.Chinese {
		return words{
			stepHelp:        "Enter：下一个工作单元   c：继续到下一步   a：继续到下一个准入步骤   ?：解释最后一次写入   q：退出",
			steppingThrough: "单步执行 %s：%s（共 %d 步）\n",
			next:            "-- 下一步：第 %d/%d 步：%s\n",
			noAdmission:     "没有哪次写入被准入修改或拒绝",
			unknownCommand:  "未知命令 %q；%s\n",
			bye:             "再见",
			failed:          "场景在上面这一步失败（FAILED）。",
			over:            "场景结束：全部 %d 步通过。\n",
			pressEnter:      "   [Enter：下一步] ",
			demoFailed:      "演示的场景失败了（见上文）",
			demoEnd: "\n共 %d 步。运行 `kubesim serve`，用 kubectl 亲自试一试；\n" +
				"用 `kubesim scenario step --lang zh examples/scenarios/demo.yaml` 单步执行这个故事。\n",
		}
	}
	return words{
		stepHelp:        "Enter: next unit of work   c: continue to the next step   a: continue to the next admission step   ?: explain the last write   q: quit",
		steppingThrough: "Stepping through %s: %s (%d steps)\n",
		next:            "-- next: step %d/%d: %s\n",
		noAdmission:     "no write was changed or refused by admission",
		unknownCommand:  "unknown command %q; %s\n",
		bye:             "bye",
		failed:          "The scenario FAILED at the step above.",
		over:            "The scenario is over: all %d steps passed.\n",
		pressEnter:      "   [Enter: next step] ",
		demoFailed:      "the demo's scenario failed (see above)",
		demoEnd: "\n%d steps. Run `kubesim serve` and use kubectl to try it yourself;\n" +
			"step through this story with `kubesim scenario step examples/scenarios/demo.yaml`.\n",
	}
}
