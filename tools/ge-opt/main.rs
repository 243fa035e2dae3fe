use melior::ir::{operation::OperationLike, Module};
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let context = ge_mlir::dialect::new_context();
    let module = Module::parse(&context, &text).expect("parse");
    assert!(module.as_operation().verify());
    println!("{}", module.as_operation());
}
