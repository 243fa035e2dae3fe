//! Turning command-line pass flags or `--pass-pipeline` text into a populated pass
//! manager.

use super::{
    aliases::lookup_alias,
    lookup,
    options::{parse_assignments, PassOptions},
    shared::ModelShare,
    statistics::PassStatistics,
    text::{parse_element, split_top_level, strip_anchor, Element},
};
use crate::ir::pass_manager::add_pipeline;
use melior::pass::{OperationPassManager, PassManager};

/// The anchor every whole pipeline must name, as in `mlir-opt`.
const ROOT_ANCHOR: &str = "builtin.module";

/// One step of a resolved pipeline.
#[derive(Clone, Debug)]
pub enum Step {
    /// One of our passes, options resolved (so option errors surface before any input is
    /// read).
    Ours(PassOptions),
    /// A run of consecutive upstream elements, as text for MLIR's pipeline parser.
    Upstream(String),
    /// Steps nested under operations named `anchor`, used when the nested list contains
    /// one of our passes (otherwise the nested element stays upstream text).
    Nested { anchor: String, steps: Vec<Step> },
}

/// A resolved pipeline: what `ge-opt` will run on each input.
#[derive(Clone, Debug, Default)]
pub struct Pipeline {
    steps: Vec<Step>,
    /// Consecutive steps of ours hand their models on ([`ModelShare`]); on unless
    /// [`Pipeline::share_models`] turned it off.
    no_sharing: bool,
}

impl Pipeline {
    /// Builds a pipeline from command-line pass flags, in command-line order. Each item is
    /// a flag without its dashes: `ascend-topo-order` or `ascend-topo-order=k=v,k2=v2`.
    pub fn from_flags<S: AsRef<str>>(flags: &[S]) -> Result<Self, String> {
        let mut passes = Vec::new();
        // Option flags (`--stream-alloc-summary=F`) apply to every instance of their pass.
        let mut extra: Vec<(&str, String, String)> = Vec::new();
        for flag in flags {
            let flag = flag.as_ref();
            let (name, options) = match flag.split_once('=') {
                Some((name, options)) => (name, Some(options)),
                None => (flag, None),
            };
            if let Some((pass, option)) = option_flag(name) {
                let value = options.ok_or_else(|| format!("--{name} needs a value"))?;
                extra.push((pass, option.to_owned(), value.to_owned()));
                continue;
            }
            let assignments = parse_assignments(options.unwrap_or(""))
                .map_err(|error| format!("--{name}: {error}"))?;
            match (lookup(name), lookup_alias(name)) {
                (Some(info), _) => passes.push((info, assignments)),
                (None, Some(alias)) => passes.extend(alias.expand(&assignments)?),
                (None, None) => return Err(format!("unknown pass flag '--{name}'")),
            }
        }
        for (pass, option, value) in &extra {
            let mut found = false;
            for (info, assignments) in passes.iter_mut().filter(|(info, _)| info.flag == *pass) {
                found = true;
                if assignments.iter().any(|(name, _)| name == option) {
                    return Err(format!(
                        "pass '{}': option '{option}' given twice (once by --{pass}-{option})",
                        info.flag
                    ));
                }
                assignments.push((option.clone(), Some(value.clone())));
            }
            if !found {
                return Err(format!("--{pass}-{option} needs --{pass}"));
            }
        }
        let steps = passes
            .into_iter()
            .map(|(info, assignments)| PassOptions::resolve(info, &assignments).map(Step::Ours))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            steps,
            no_sharing: false,
        })
    }

    /// Parses `--pass-pipeline` text: `builtin.module(element, ...)`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let body = strip_anchor(text, ROOT_ANCHOR)?;
        Ok(Self {
            steps: parse_steps(body)?,
            no_sharing: false,
        })
    }

    /// Whether consecutive steps of ours hand their models on (the default) or each reads
    /// the IR (the same output, slower: `ge-opt --share-models=false` checks that).
    pub fn share_models(mut self, share: bool) -> Self {
        self.no_sharing = !share;
        self
    }

    /// The resolved steps.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Whether the pipeline has no pass at all.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Adds every step to `manager` (anchored on `builtin.module`). Each instance of our
    /// passes reports its counters to `statistics`; consecutive top-level steps of ours
    /// hand their models on ([`ModelShare`]).
    pub fn add_to(&self, manager: &PassManager, statistics: &PassStatistics) -> Result<(), String> {
        add_steps(
            manager.as_operation_pass_manager(),
            &self.steps,
            statistics,
            !self.no_sharing,
        )
    }

    /// A pipeline of already resolved steps (the `mlir-opt` plugin resolves one pass, or
    /// the passes of an alias one by one, and keeps each as its own pipeline).
    pub fn from_steps(steps: Vec<Step>) -> Self {
        Self {
            steps,
            no_sharing: false,
        }
    }

    /// [`Pipeline::add_to`] for any op pass manager: a nested one, or the dynamic pipeline
    /// a pass of another tool (`mlir-opt` with our plugin) runs on its operation.
    pub fn add_to_operation_pass_manager(
        &self,
        manager: OperationPassManager,
        statistics: &PassStatistics,
    ) -> Result<(), String> {
        add_steps(manager, &self.steps, statistics, !self.no_sharing)
    }
}

/// Whether `arg` (a raw command-line argument) is one of our pass flags:
/// `--<flag>` or `--<flag>=<options>`.
pub fn is_pass_flag(arg: &str) -> bool {
    arg.strip_prefix("--")
        .map(|rest| rest.split_once('=').map_or(rest, |(name, _)| name))
        .is_some_and(|name| {
            lookup(name).is_some() || lookup_alias(name).is_some() || option_flag(name).is_some()
        })
}

/// A command-line flag that sets one option of a pass: (pass flag, option).
fn option_flag(name: &str) -> Option<(&'static str, &'static str)> {
    crate::transforms::stream::stream_alloc::FLAG_ALIASES
        .iter()
        .find(|(flag, _)| *flag == name)
        .map(|&(_, option)| ("stream-alloc", option))
}

fn parse_steps(body: &str) -> Result<Vec<Step>, String> {
    let mut steps: Vec<Step> = Vec::new();
    for text in split_top_level(body)? {
        let step = match parse_element(text)? {
            Element::Pass { name, options } => match (lookup(name), lookup_alias(name)) {
                (Some(info), _) => {
                    let assignments = parse_assignments(options.unwrap_or(""))
                        .map_err(|error| format!("{name}: {error}"))?;
                    Step::Ours(PassOptions::resolve(info, &assignments)?)
                }
                (None, Some(alias)) => {
                    let assignments = parse_assignments(options.unwrap_or(""))
                        .map_err(|error| format!("{name}: {error}"))?;
                    for (info, own) in alias.expand(&assignments)? {
                        steps.push(Step::Ours(PassOptions::resolve(info, &own)?));
                    }
                    continue;
                }
                (None, None) => Step::Upstream(text.to_owned()),
            },
            Element::Nested { anchor, body } => {
                let nested = parse_steps(body)?;
                if nested.iter().all(|step| matches!(step, Step::Upstream(_))) {
                    Step::Upstream(text.to_owned())
                } else {
                    Step::Nested {
                        anchor: anchor.to_owned(),
                        steps: nested,
                    }
                }
            }
        };
        // Consecutive upstream elements go to MLIR's parser together.
        match (steps.last_mut(), step) {
            (Some(Step::Upstream(previous)), Step::Upstream(next)) => {
                previous.push(',');
                previous.push_str(&next);
            }
            (_, step) => steps.push(step),
        }
    }
    Ok(steps)
}

/// `share`: whether consecutive steps of ours hand models on. Not in nested pipelines:
/// MLIR may run those on several threads, on ops below the module.
fn add_steps(
    manager: OperationPassManager,
    steps: &[Step],
    statistics: &PassStatistics,
    share: bool,
) -> Result<(), String> {
    let chain = ModelShare::new_chain();
    let ours = |i: usize| matches!(steps.get(i), Some(Step::Ours(_)));
    for (i, step) in steps.iter().enumerate() {
        match step {
            Step::Ours(options) => {
                let link = if share {
                    ModelShare::link(chain, i as u32, i > 0 && ours(i - 1), ours(i + 1))
                } else {
                    ModelShare::NONE
                };
                let options = options
                    .clone()
                    .with_statistics(statistics.clone())
                    .with_share(link);
                manager.add_pass((options.info().create)(&options)?);
            }
            Step::Upstream(text) => add_pipeline(manager, text)?,
            Step::Nested { anchor, steps } => {
                add_steps(manager.nested_under(anchor), steps, statistics, false)?
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(steps: &[Step]) -> String {
        steps
            .iter()
            .map(|step| match step {
                Step::Ours(options) => format!("ours:{}", options.info().flag),
                Step::Upstream(text) => format!("up:{text}"),
                Step::Nested { anchor, steps } => format!("{anchor}[{}]", shape(steps)),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn groups_upstream_runs_and_resolves_ours() {
        let pipeline = Pipeline::parse(
            "builtin.module(canonicalize, cse, ascend-topo-order{start-id=2}, symbol-dce)",
        )
        .unwrap();
        assert_eq!(
            shape(pipeline.steps()),
            "up:canonicalize,cse ours:ascend-topo-order up:symbol-dce"
        );
        let Step::Ours(options) = &pipeline.steps()[1] else {
            panic!("expected our pass")
        };
        assert_eq!(options.int("start-id"), Ok(2));
    }

    #[test]
    fn nests_only_when_a_nested_list_holds_our_pass() {
        let pipeline = Pipeline::parse(
            "builtin.module(func.func(cse), func.func(cse, ascend-topo-order), cse)",
        )
        .unwrap();
        assert_eq!(
            shape(pipeline.steps()),
            "up:func.func(cse) func.func[up:cse ours:ascend-topo-order] up:cse"
        );
    }

    #[test]
    fn option_errors_surface_at_parse_time() {
        let error = Pipeline::parse("builtin.module(ascend-topo-order{bogus=1})").unwrap_err();
        assert!(error.contains("no option 'bogus'"), "{error}");
        let error = Pipeline::from_flags(&["ascend-topo-order=start-id=x"]).unwrap_err();
        assert!(error.contains("not an integer"), "{error}");
        assert!(Pipeline::from_flags(&["no-such-pass"]).is_err());
    }

    #[test]
    fn flags_keep_command_line_order() {
        let pipeline =
            Pipeline::from_flags(&["ascend-topo-order=start-id=5", "ascend-topo-order"]).unwrap();
        let starts: Vec<_> = pipeline
            .steps()
            .iter()
            .map(|step| match step {
                Step::Ours(options) => options.int("start-id").unwrap(),
                _ => panic!("expected our pass"),
            })
            .collect();
        assert_eq!(starts, vec![5, 0]);
    }

    #[test]
    fn aliases_expand_in_flags_and_in_pipeline_text() {
        let from_flags = Pipeline::from_flags(&["ge-compile=single-stream=true"]).unwrap();
        let from_text =
            Pipeline::parse("builtin.module(cse, ge-compile{single-stream=true}, cse)").unwrap();
        let expected = crate::pipeline::aliases::lookup_alias("ge-compile")
            .unwrap()
            .passes
            .iter()
            .map(|flag| format!("ours:{flag}"))
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(shape(from_flags.steps()), expected);
        assert_eq!(
            shape(from_text.steps()),
            format!("up:cse {expected} up:cse")
        );
        for pipeline in [&from_flags, &from_text] {
            let stream = pipeline.steps().iter().find_map(|step| match step {
                Step::Ours(options) if options.info().flag == "stream-alloc" => Some(options),
                _ => None,
            });
            assert_eq!(stream.unwrap().bool("single-stream"), Ok(true));
        }
        assert!(is_pass_flag("--ge-compile"));
        assert!(Pipeline::from_flags(&["ge-compile=bogus=1"]).is_err());
    }

    #[test]
    fn recognises_pass_flags() {
        assert!(is_pass_flag("--ascend-topo-order"));
        assert!(is_pass_flag("--ascend-topo-order=start-id=1"));
        assert!(!is_pass_flag("-ascend-topo-order"));
        assert!(!is_pass_flag("--canonicalize"));
        assert!(!is_pass_flag("--ascend-topo"));
    }
}
