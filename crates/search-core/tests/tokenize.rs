//! The tokenizer through its public functions: words, CJK bigrams, mixed
//! scripts and query terms.

use ferret_core::tokenize::token_strings;
use ferret_text::Analyzer;

fn query_terms(q: &str) -> Vec<String> {
    Analyzer::KEYWORD.terms(q)
}

#[test]
fn words_are_lowercased_and_keep_inner_symbols() {
    assert_eq!(
        token_strings("Node.js vs C++ and C#, it's OK."),
        vec!["node.js", "vs", "c++", "and", "c#", "it's", "ok"]
    );
}

#[test]
fn cjk_runs_become_bigrams() {
    assert_eq!(
        token_strings("Rust 异步编程"),
        vec!["rust", "异步", "步编", "编程"]
    );
    assert_eq!(token_strings("是"), vec!["是"]);
}

#[test]
fn mixed_scripts_split_at_the_boundary() {
    assert_eq!(
        token_strings("Deno最新进展"),
        vec!["deno", "最新", "新进", "进展"]
    );
}

#[test]
fn query_terms_drop_short_words_but_keep_cjk() {
    assert_eq!(
        query_terms("what is a k8s 集群"),
        vec!["what", "k8s", "集群"]
    );
}
