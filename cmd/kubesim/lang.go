package main

import (
	"github.com/spf13/pflag"

	"github.com/kubesim/kubesim/scenario"
	"github.com/kubesim/kubesim/stepper"
)

// langFlag adds --lang to a command that shows a scenario's notes: the
// course kubesim teaches from is Chinese. A value other than en
// or zh is a usage error from pflag, with the command's usage.
func langFlag(fs *pflag.FlagSet) *scenario.Lang {
	lang := scenario.English
	fs.Var(langValue{&lang}, "lang", "language of the notes and of the stepper's own lines: `en|zh` (the trace stays as the API writes it)")
	return &lang
}

// langValue is --lang's pflag.Value.
type langValue struct{ lang *scenario.Lang }

func (v langValue) String() string {
	if v.lang == nil {
		return ""
	}
	return string(*v.lang)
}

func (v langValue) Type() string { return "lang" }

func (v langValue) Set(s string) error {
	l, err := scenario.ParseLang(s)
	if err != nil {
		return err
	}
	*v.lang = l
	return nil
}

// words are the lines demo and the stepper print around a scenario, in
// one language: their own, the messages of the steps the runner takes
// itself (steps) and the explanations of `?` (explain). The trace, the
// step titles' API words and what the API answered are not among them:
// they name what the API wrote.
type words struct {
	// steps are the runner's messages ("stable after 3 step(s)").
	steps scenario.Phrases
	// explain are the sentences of `?`'s causality chain.
	explain stepper.Phrases
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
			steps: scenario.Phrases{
				Ran:              "运行了 %d 个工作单元；时钟为 %s",
				Stable:           "%d 个工作单元后稳定；时钟为 %s",
				Advanced:         "%d 个工作单元；时钟为 %s",
				NotStable:        "%d 个工作单元后仍不稳定",
				StillBusy:        "%d 个工作单元后仍在忙",
				Settles:          "集群稳定下来",
				NodeStopped:      "%s 的 kubelet 停止了：不再有心跳，它的 Pod 无人照看",
				NodeStarted:      "%s 的 kubelet 重新启动了",
				ComponentKilled:  "控制器管理器 %s 被杀死：它的控制器停止运行；它既不续约也不释放它的 Lease",
				TurnedOff:        "%s 已关闭",
				TurnedOn:         "%s 已开启",
				DeviceUnhealthy:  "设备插件把 %[3]s 上 %[2]s 的 %[1]s 标为不健康；kubelet 从 ListAndWatch 得知",
				DeviceHealthy:    "设备插件把 %[3]s 上 %[2]s 的 %[1]s 重新标为健康；kubelet 从 ListAndWatch 得知",
				FailedAsExpected: "如预期失败：%s",
			},
			explain: stepper.Phrases{
				Lead:             "%s：%s\n",
				LastWrite:        "最后一次写入",
				CreatedBy:        "创建它的写入",
				MadeBy:           "  由 %s 在 %s 写入，当时它在调谐 %s\n",
				NoCause:          "  %s 没有记录原因。\n",
				NotAnEvent:       "  %s 处理 %s 是因为 %q（它自己的启动或一个定时器），而不是一个监视事件。\n",
				Requeued:         "  %[1]s 因 %[2]q 进入队列，这是 %[3]s 在 %[5]s 更早一次调谐 %[4]s 时设下的\n",
				SawEvent:         "  因为 %[1]s 看到了 %[3]s %[4]s 在 resourceVersion %[5]s 的 %[2]s 事件\n",
				ByYou:            "  resourceVersion %s 是你写入的：%s：%s\n",
				ByYouInStep:      "  resourceVersion %s 是你写入的：第 %d 步（%s）：%s\n",
				NotTraced:        "  resourceVersion %s 不是由被追踪的工作单元写入的（而是 API 服务器自己，或者一次最终的删除，其应答不带新的版本）。\n",
				WrittenBy:        "  resourceVersion %[1]s 由 %[2]s 在 %[3]s 写入（%[4]s），当时它在调谐 %[5]s\n",
				YouCreated:       "是你创建的：%s：%s\n",
				YouCreatedInStep: "是你创建的：第 %d 步（%s）：%s\n",
				NoCreate:         "没有哪次被追踪的写入在 %[2]s 中创建 %[1]s：它是在追踪开始之前创建的，或者是 API 服务器自己创建的。\n",
				NothingYet:       "还没有哪个控制回路写入过任何东西：按 Enter 执行下一个工作单元。\n",
			},
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
		steps:           scenario.EnglishPhrases(),
		explain:         stepper.EnglishPhrases(),
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
