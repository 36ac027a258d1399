//! Rebuild when a built-in package under `sites/` changes (include_dir
//! tracks the files it embedded, not files added later).

fn main() {
    println!("cargo:rerun-if-changed=sites");
}
