//! Generates the `.ge` parser from `grammar/ascend.lalrpop`.
fn main() {
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .emit_rerun_directives(true)
        .process()
        .expect("lalrpop grammar must compile");
}
