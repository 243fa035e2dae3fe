//! `ge-run`: compile, lower and run a model on a device (the bundled simulator by default).
fn main() {
    eprintln!("ge-run: not built yet");
    std::process::exit(1);
}
