//! Freshness by domain: how old evidence may be before it is stale, by the
//! topic of the question ([`MAX_AGE_MONTHS`]), and a keyword classifier
//! that picks the topic.

use chrono::{DateTime, Months, Utc};
use ferret_core::tokenize::{has_cjk, token_strings};
use serde::{Deserialize, Serialize};

/// What a question is about, for the freshness limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Topic {
    /// AI and machine learning: 6 months.
    Ai,
    /// Frameworks and libraries: 1 year.
    Framework,
    /// Programming languages: 1 year.
    Language,
    /// Hiring, jobs, salaries: 1 year.
    Hiring,
    /// Infrastructure, cloud, databases, operations: 2 years.
    Infra,
    /// A CVE and its patch: 3 months.
    CvePatch,
    /// Vulnerability classes and attack patterns: 2 years.
    SecurityPattern,
    /// Theory: algorithms, proofs, data structures: 5 years.
    Theory,
    /// None of the above: no limit from the table.
    General,
}

/// The age limit per topic, in months.
pub const MAX_AGE_MONTHS: &[(Topic, u32)] = &[
    (Topic::CvePatch, 3),
    (Topic::Ai, 6),
    (Topic::Framework, 12),
    (Topic::Language, 12),
    (Topic::Hiring, 12),
    (Topic::Infra, 24),
    (Topic::SecurityPattern, 24),
    (Topic::Theory, 60),
];

/// Keywords per topic. A keyword with CJK characters matches as a
/// substring; any other matches whole tokens (a multi-word keyword matches
/// the same tokens in a row), so `ai` never matches `maintain`.
pub const TOPIC_KEYWORDS: &[(Topic, &[&str])] = &[
    (
        Topic::CvePatch,
        &[
            "cve",
            "patch",
            "patched",
            "hotfix",
            "security update",
            "security advisory",
            "advisory",
            "ghsa",
            "affected versions",
            "fixed in",
            "zero day",
            "0day",
            "补丁",
            "安全更新",
            "安全公告",
            "修复版本",
            "漏洞修复",
        ],
    ),
    (
        Topic::Ai,
        &[
            "ai",
            "llm",
            "llms",
            "gpt",
            "chatgpt",
            "claude",
            "gemini",
            "llama",
            "mistral",
            "deepseek",
            "qwen",
            "openai",
            "anthropic",
            "transformer",
            "transformers",
            "diffusion",
            "embedding",
            "embeddings",
            "rag",
            "fine tuning",
            "finetuning",
            "machine learning",
            "deep learning",
            "neural network",
            "prompt",
            "prompts",
            "agent",
            "agents",
            "copilot",
            "pytorch",
            "tensorflow",
            "大模型",
            "人工智能",
            "机器学习",
            "深度学习",
            "神经网络",
            "智能体",
            "提示词",
            "微调",
            "生成式",
        ],
    ),
    (
        Topic::Hiring,
        &[
            "hiring",
            "salary",
            "salaries",
            "job",
            "jobs",
            "interview",
            "interviews",
            "recruiting",
            "recruitment",
            "career",
            "careers",
            "layoff",
            "layoffs",
            "compensation",
            "招聘",
            "薪资",
            "薪酬",
            "工资",
            "面试",
            "求职",
            "岗位",
            "裁员",
            "跳槽",
        ],
    ),
    (
        Topic::Framework,
        &[
            "framework",
            "frameworks",
            "library",
            "libraries",
            "sdk",
            "react",
            "vue",
            "angular",
            "svelte",
            "next.js",
            "nextjs",
            "nuxt",
            "django",
            "flask",
            "fastapi",
            "rails",
            "spring",
            "laravel",
            "express",
            "tokio",
            "axum",
            "actix",
            "tauri",
            "electron",
            "flutter",
            "框架",
            "依赖库",
        ],
    ),
    (
        Topic::Language,
        &[
            "rust",
            "python",
            "javascript",
            "typescript",
            "golang",
            "java",
            "kotlin",
            "swift",
            "c++",
            "c#",
            "ruby",
            "php",
            "scala",
            "zig",
            "elixir",
            "haskell",
            "programming language",
            "compiler",
            "syntax",
            "编程语言",
            "编译器",
            "语法",
        ],
    ),
    (
        Topic::Infra,
        &[
            "kubernetes",
            "k8s",
            "docker",
            "container",
            "containers",
            "terraform",
            "ansible",
            "aws",
            "gcp",
            "azure",
            "cloud",
            "linux",
            "nginx",
            "database",
            "databases",
            "postgres",
            "postgresql",
            "mysql",
            "redis",
            "kafka",
            "cdn",
            "dns",
            "load balancer",
            "infrastructure",
            "devops",
            "serverless",
            "运维",
            "部署",
            "基础设施",
            "服务器",
            "数据库",
            "容器",
            "云原生",
            "云服务",
        ],
    ),
    (
        Topic::SecurityPattern,
        &[
            "vulnerability",
            "vulnerabilities",
            "exploit",
            "exploits",
            "xss",
            "csrf",
            "ssrf",
            "injection",
            "rce",
            "owasp",
            "threat model",
            "attack",
            "attacks",
            "mitigation",
            "漏洞",
            "攻击",
            "注入",
            "威胁模型",
        ],
    ),
    (
        Topic::Theory,
        &[
            "algorithm",
            "algorithms",
            "theorem",
            "proof",
            "complexity",
            "theory",
            "data structure",
            "data structures",
            "consensus",
            "paxos",
            "raft",
            "lambda calculus",
            "type theory",
            "理论",
            "算法",
            "定理",
            "证明",
            "复杂度",
            "数据结构",
            "共识",
        ],
    ),
];

impl Topic {
    /// The JSON name (`ai`, `cve_patch`, …).
    pub const fn as_str(self) -> &'static str {
        match self {
            Topic::Ai => "ai",
            Topic::Framework => "framework",
            Topic::Language => "language",
            Topic::Hiring => "hiring",
            Topic::Infra => "infra",
            Topic::CvePatch => "cve_patch",
            Topic::SecurityPattern => "security_pattern",
            Topic::Theory => "theory",
            Topic::General => "general",
        }
    }

    /// The age limit in months; `None` for [`Topic::General`].
    pub fn max_age_months(self) -> Option<u32> {
        MAX_AGE_MONTHS
            .iter()
            .find(|(t, _)| *t == self)
            .map(|&(_, m)| m)
    }

    /// Whether evidence published at `published` is older than the limit at
    /// `now` (calendar months: published in January with a 3-month limit is
    /// stale after the same day of April).
    pub fn is_stale(self, published: DateTime<Utc>, now: DateTime<Utc>) -> bool {
        self.max_age_months()
            .and_then(|m| published.checked_add_months(Months::new(m)))
            .is_some_and(|limit| limit < now)
    }
}

/// Whether the topic came from the classifier or the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TopicSource {
    /// Picked from the question's keywords.
    Classified,
    /// Given by the caller.
    Override,
}

/// The topic chosen for a question, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicChoice {
    /// The topic.
    pub topic: Topic,
    /// Its age limit in months (`None`: no limit).
    pub max_age_months: Option<u32>,
    /// The keywords that matched, of the chosen topic.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// Classified or given.
    pub source: TopicSource,
}

impl TopicChoice {
    /// A caller's choice.
    pub fn given(topic: Topic) -> Self {
        TopicChoice {
            topic,
            max_age_months: topic.max_age_months(),
            keywords: Vec::new(),
            source: TopicSource::Override,
        }
    }
}

/// The topic of a question: of the topics whose keywords occur, the one
/// with the strictest age limit (a question about an AI framework is held
/// to AI's six months); [`Topic::General`] when none occurs.
pub fn classify_topic(question: &str) -> TopicChoice {
    let lower = question.to_lowercase();
    let joined = format!(" {} ", token_strings(question).join(" "));
    let mut best: Option<(Topic, u32, Vec<String>)> = None;
    for &(topic, keywords) in TOPIC_KEYWORDS {
        let matched: Vec<String> = keywords
            .iter()
            .filter(|k| {
                if has_cjk(k) {
                    lower.contains(*k)
                } else {
                    joined.contains(&format!(" {k} "))
                }
            })
            .map(|k| (*k).to_string())
            .collect();
        let Some(months) = topic.max_age_months() else {
            continue;
        };
        if !matched.is_empty() && best.as_ref().is_none_or(|(_, m, _)| months < *m) {
            best = Some((topic, months, matched));
        }
    }
    match best {
        Some((topic, months, keywords)) => TopicChoice {
            topic,
            max_age_months: Some(months),
            keywords,
            source: TopicSource::Classified,
        },
        None => TopicChoice {
            topic: Topic::General,
            max_age_months: None,
            keywords: Vec::new(),
            source: TopicSource::Classified,
        },
    }
}

/// The age tag: `[age: N years]` for a year or more (whole years),
/// otherwise `[age: N months]` (whole months, at least 1).
pub fn age_tag(age_days: i64) -> String {
    let years = age_days * 100 / 36525;
    if years >= 1 {
        format!("[age: {years} {}]", plural(years, "year"))
    } else {
        let months = (age_days * 1200 / 36525).max(1);
        format!("[age: {months} {}]", plural(months, "month"))
    }
}

/// `unit`, with an `s` unless `n` is 1.
fn plural(n: i64, unit: &str) -> String {
    if n == 1 {
        unit.to_string()
    } else {
        format!("{unit}s")
    }
}
