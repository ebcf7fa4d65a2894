//! Synthetic ToolACE-like records in the RAGTruth-compatible schema, for benchmarks.
//!
//! Pure and deterministic: record `i` of seed `s` is always the same bytes, whatever the thread
//! count, because every record (and every base dialogue) draws from its own random stream. The
//! JSON is written by hand (Python `json.dumps` separators, non-ASCII raw) so that gigabytes come
//! out in seconds. Used by the `gen` example and by `benches/core.rs`.
//!
//! Records come in groups of four per base dialogue (`clean`, `contradiction`, `missing_tool`,
//! `overgeneration`); about one clean record in ten is a `__clean__recovered` record of another
//! type. Every answer has non-ASCII characters (`’`, `°`, `é`, CJK, emoji, combining marks) before
//! its first span, so an offset computed in UTF-8 bytes or UTF-16 units never lands right.

use std::fmt::Write as _;

/// Variants of one base dialogue, in record order.
pub const VARIANTS: [&str; 4] = ["clean", "contradiction", "missing_tool", "overgeneration"];

/// What can be wrong with an injected broken line (see [`Options::broken`]).
pub const BROKEN_KINDS: [&str; 11] = [
    "invalid_json",
    "missing_output",
    "offset_float",
    "offset_string",
    "reversed_span",
    "out_of_bounds",
    "text_mismatch",
    "byte_offsets",
    "unknown_label",
    "duplicate_id",
    "base_id_mismatch",
];

/// Generation settings.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Seed of every random stream.
    pub seed: u64,
    /// Fraction of records written as a broken line (0 for a valid file).
    pub broken: f64,
    /// Smallest and largest raw context size in bytes.
    pub context_min: usize,
    /// Largest raw context size in bytes.
    pub context_max: usize,
    /// Skew of the context size: `min * (max/min)^(u^skew)`, `u` uniform; larger is more skewed
    /// towards small contexts. 4.3 with 1 KB..100 KB gives about 10 KB a line (150,000 records ≈ 1.5 GB).
    pub skew: f64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            seed: 1,
            broken: 0.0,
            context_min: 1_000,
            context_max: 100_000,
            skew: 4.3,
        }
    }
}

/// A small, fast, seedable generator (splitmix64). Not for cryptography.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// The stream `stream` of item `i` under `seed`.
    #[must_use]
    pub fn new(seed: u64, stream: u64, i: u64) -> Self {
        let mut r = Self(
            seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03)
                ^ i.wrapping_mul(0xAEF1_7502_108E_F2D9),
        );
        r.next_u64();
        r
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    /// One string of a non-empty list.
    pub fn pick_str<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }

    /// An element of `xs` other than `not` (when there is one).
    pub fn pick_other<'a>(&mut self, xs: &[&'a str], not: &str) -> &'a str {
        for _ in 0..8 {
            let x = *self.pick(xs);
            if x != not {
                return x;
            }
        }
        xs.iter().copied().find(|x| *x != not).unwrap_or(xs[0])
    }
}

// ---------------------------------------------------------------------------------------------
// Value pools. Every pool mixes scripts; some strings need JSON escaping (quotes, backslashes,
// newlines) and some hold combining marks (decomposed é, ã), emoji with variation selectors,
// skin-tone modifiers and ZWJ sequences (several code points, one glyph).

const CITIES: &[&str] = &[
    "Zürich",
    "São Paulo",
    "Sa\u{303}o Tome\u{301}",
    "東京",
    "Kraków",
    "Reykjavík",
    "Montréal",
    "Αθήνα",
    "Москва",
    "서울",
    "Málaga",
    "Nice",
    "Lyon",
    "Oslo",
    "København",
    "İstanbul",
    "北京",
    "Mumbai",
    "Cancún",
    "Düsseldorf",
    "Québec",
    "Łódź",
    "Berlin",
    "Boston",
];
const CONDITIONS: &[&str] = &[
    "light rain ☔",
    "clear skies ☀️",
    "partly cloudy ⛅",
    "thunderstorms ⛈️",
    "snow ❄️",
    "fog 🌫️",
    "drizzle",
    "strong wind 🌬️",
    "sunny intervals 🌤️",
    "heavy rain",
];
const VENUES: &[&str] = &[
    "Salle Pleyel",
    "Café Lumière",
    "Tōkyō Dome",
    "Teatro Colón",
    "Olympiastadion",
    "Royal Albert Hall",
    "Kulturhuset",
    "Halle Tony Garnier",
    "Palau de la Música",
    "Zénith",
];
const TITLES: &[&str] = &[
    "AI Summit 2025",
    "Jazz à Vienne",
    "Rock’n’Roll Night",
    "東京 Tech Meetup",
    "Fête de la Musique",
    "Data Café",
    "Nuit Blanche 🎨",
    "Deep Learning Día",
    "Kraków Film Fest",
    "Noël Market 🎄",
];
const HOTELS: &[&str] = &[
    "Hôtel Le Marais",
    "Ryokan Sakura 桜",
    "Hotel Zürichberg",
    "Pensão Amélia",
    "The Øresund Inn",
    "Casa Rene\u{301}e",
    "Grand Hôtel Européen",
    "Hostal Niño",
    "Gästehaus Müller",
    "Villa Ḥayāt",
];
const PRODUCTS: &[&str] = &[
    "Bialetti Moka Express",
    "Crème Brûlée Torch",
    "Sony WH-1000XM5 🎧",
    "Kindle Paperwhite",
    "Le Creuset Cocotte",
    "Ōsaka chef’s knife",
    "Smart Plug Mini",
    "Dyson V15 Détect",
    "LEGO® Technic Porsche",
    "Brio Café Grinder",
];
const STATUSES: &[&str] = &["on time", "delayed", "boarding", "cancelled", "departed"];
const STOCK: &[&str] = &["in stock", "out of stock", "back-ordered", "only 2 left"];
const NOTES: &[&str] = &[
    "Forecast issued by the national service; values may change.",
    "Indoor venue — wheelchair accessible ♿.",
    "Prix TTC, livraison gratuite dès 50 €.",
    "営業時間は午前9時から午後6時までです。",
    "Customer said \"great value\" in 87% of reviews.",
    "Path on the share: C:\\exports\\2025\\report.csv",
    "Line one of the note.\nLine two, after a newline.\tTabbed.",
    "Übernachtung inkl. Frühstück; Check-in ab 15 Uhr.",
    "Ré-ouverture prévue le 3 mars — café offert ☕.",
    "Поставка ожидается в течение недели.",
    "예약은 취소 수수료 없이 변경 가능합니다.",
    "Family-friendly 👨‍👩‍👧, pets allowed 🐕, thumbs up 👍🏽.",
    "Temperature measured at 2 m above ground, ±0.5 °C.",
    "Data source: ECB reference rate (1 EUR = 1.0843 USD, ¥161.2).",
    "Naïve Bayes model v2.1 flagged nothing unusual.",
    "",
];
const INTROS: &[&str] = &[
    "Here’s what I found 🔎:",
    "Voilà — here’s the summary you asked for:",
    "Sure! Here’s the latest from the tool ✅.",
    "Bien sûr: the results are below 👇.",
    "以下是结果 — here’s the overview:",
    "Great question! Here’s a quick rundown (data as of today, 09:00 CET):",
    "I’ve checked the service for you 🙂.",
];
const OUTROS: &[&str] = &[
    "Let me know if you’d like more details — happy to help! 😊",
    "Anything else? I’m here 👋.",
    "Hope this helps, and have a great day ☀️!",
    "N’hésitez pas si vous avez d’autres questions.",
    "Let me know if there's anything else I can assist you with!",
];
const OVERGEN: &[&str] = &[
    "Comparable services in the region have shown similar behavior recently.",
    "Locals say it’s the busiest week since 2019 📈.",
    "Prices are expected to drop by about 15 % next month.",
    "Most travellers rate this option 5★ on independent review sites.",
    "東京 offices report the same trend this quarter.",
    "This was confirmed by the provider’s support team this morning.",
    "Experts at the Université de Genève consider this the best choice.",
    "It’s also the most eco-friendly option 🌱, with 40 % lower emissions.",
];
const MISSING_TOOL: &[&str] = &[
    "I’ve also booked a table for two at Café Lumière.",
    "I’ve sent the full itinerary to your e-mail 📧.",
    "I’ve added it to your calendar with a reminder at 07:30 ⏰.",
    "I went ahead and paid the €25 deposit for you.",
    "I converted the total with today’s rate: ¥18,240.",
    "I’ve also texted the details to your phone 📱.",
    "I’ve reserved two seats in row 12 for you.",
];
const DISTRACTOR_TOOLS: &[&str] = &[
    r#"{"name": "getRandom", "description": "Retrieve a random sequence of characters matching the provided query attributes", "parameters": {"type": "dict", "properties": {"length": {"description": "Sequence length", "type": "int"}, "case": {"description": "Force sequence to match case argument", "type": "string", "default": "all"}}, "required": ["length"]}, "required": null}"#,
    r#"{"name": "Currency Converter", "description": "Converts an amount between currencies (€, $, ¥, £) at the ECB reference rate.", "parameters": {"type": "dict", "properties": {"amount": {"description": "Amount to convert", "type": "float"}, "from": {"description": "ISO code", "type": "string"}, "to": {"description": "ISO code", "type": "string"}}, "required": ["amount", "from", "to"]}, "required": null}"#,
    r#"{"name": "Translate Text", "description": "Translates text between languages, e.g. “bonjour” → “hello”.", "parameters": {"type": "dict", "properties": {"text": {"description": "Text to translate", "type": "string"}, "target": {"description": "Target language code", "type": "string", "default": "en"}}, "required": ["text"]}, "required": null}"#,
    r#"{"name": "Retrieve Collection Fees", "description": "This endpoint returns the various collection fees for a given slug.", "parameters": {"type": "dict", "properties": {"slug": {"description": "The slug of the collection", "type": "string"}}, "required": ["slug"]}, "required": null}"#,
    r#"{"name": "Time Zone Lookup", "description": "Local time and UTC offset of a city (e.g. Zürich → UTC+01:00).", "parameters": {"type": "dict", "properties": {"city": {"description": "City name", "type": "string"}}, "required": ["city"]}, "required": null}"#,
];

/// The kinds of tool dialogue the generator writes.
#[derive(Debug, Clone, Copy)]
enum Domain {
    Weather,
    Events,
    Hotels,
    Flights,
    Products,
}

const DOMAINS: [Domain; 5] = [
    Domain::Weather,
    Domain::Events,
    Domain::Hotels,
    Domain::Flights,
    Domain::Products,
];

impl Domain {
    fn tool(self) -> &'static str {
        match self {
            Self::Weather => "Get Weather Forecast",
            Self::Events => "GetFutureEventsByTopic",
            Self::Hotels => "Search Hotels",
            Self::Flights => "Flight Status",
            Self::Products => "Product Search",
        }
    }

    /// Key of the list in the tool response; sorts before `page`.
    fn list_key(self) -> &'static str {
        match self {
            Self::Weather => "forecast",
            Self::Events => "events",
            Self::Hotels => "hotels",
            Self::Flights => "flights",
            Self::Products => "items",
        }
    }

    fn schema(self) -> &'static str {
        match self {
            Self::Weather => {
                r#"{"name": "Get Weather Forecast", "description": "Daily forecast for a city: condition, temperature in °C, wind in km/h.", "parameters": {"type": "dict", "properties": {"city": {"description": "City name, any script (e.g. 東京, Zürich)", "type": "string"}, "days": {"description": "Number of days", "type": "int", "default": 3}}, "required": ["city"]}, "required": null}"#
            }
            Self::Events => {
                r#"{"name": "GetFutureEventsByTopic", "description": "This API retrieves future events by topic.", "parameters": {"type": "dict", "properties": {"topic": {"description": "The topic for which future events are to be retrieved.", "type": "string"}, "page": {"description": "The page number for pagination.", "type": "float"}}, "required": ["topic", "page"]}, "required": null}"#
            }
            Self::Hotels => {
                r#"{"name": "Search Hotels", "description": "Hotels in a city with rating (★) and nightly price in ¥.", "parameters": {"type": "dict", "properties": {"city": {"description": "City", "type": "string"}, "checkin": {"description": "Check-in date (YYYY-MM-DD)", "type": "string"}, "nights": {"description": "Number of nights", "type": "int"}}, "required": ["city", "checkin"]}, "required": null}"#
            }
            Self::Flights => {
                r#"{"name": "Flight Status", "description": "Live status of flights between two airports.", "parameters": {"type": "dict", "properties": {"from": {"description": "Departure city", "type": "string"}, "to": {"description": "Arrival city", "type": "string"}, "date": {"description": "Date", "type": "string"}}, "required": ["from", "to"]}, "required": null}"#
            }
            Self::Products => {
                r#"{"name": "Product Search", "description": "Searches the shop’s catalogue; prices in € incl. VAT.", "parameters": {"type": "dict", "properties": {"query": {"description": "Search words", "type": "string"}, "max_price": {"description": "Upper price bound in €", "type": "float"}}, "required": ["query"]}, "required": null}"#
            }
        }
    }
}

/// One piece of an answer sentence: plain text, or a fact a contradiction can falsify.
#[derive(Debug, Clone)]
enum Piece {
    Lit(String),
    Fact { right: String, wrong: String },
}

/// A sentence of the answer and the separator written before it.
#[derive(Debug, Clone)]
struct Sentence {
    sep: &'static str,
    pieces: Vec<Piece>,
}

/// What the variants of one base dialogue share.
#[derive(Debug, Clone)]
pub struct Base {
    /// `toolace_synth_000123`.
    pub id: String,
    /// The user request.
    pub query: String,
    /// Tool responses, one JSON object per line (raw, not yet escaped).
    pub context: String,
    /// `meta.tools` as JSON text.
    pub tools: String,
    /// `meta.tool_call` as JSON text.
    pub tool_call: String,
    plan: Vec<Sentence>,
}

/// A labeled span in code points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// First code point.
    pub start: usize,
    /// One past the last code point.
    pub end: usize,
    /// `output[start:end]`.
    pub text: String,
    /// The hallucination type.
    pub label: String,
}

/// One generated record, before serialisation.
#[derive(Debug, Clone)]
pub struct Record {
    /// Record id.
    pub id: String,
    /// Index of the base dialogue.
    pub base: usize,
    /// `meta.corruption_type`.
    pub corruption_type: &'static str,
    /// The answer.
    pub output: String,
    /// Gold spans.
    pub labels: Vec<Label>,
    /// Code-point ranges of the answer's sentences (detector noise draws from them).
    pub sentences: Vec<(usize, usize)>,
}

fn date(rng: &mut Rng) -> String {
    format!("2025-{:02}-{:02}", rng.range(1, 12), rng.range(1, 28))
}

fn temp(tenths: i64) -> String {
    let sign = if tenths < 0 { "-" } else { "" };
    let a = tenths.unsigned_abs();
    format!("{sign}{}.{}°C", a / 10, a % 10)
}

/// Append `s` as a JSON string literal (quotes, backslashes and control characters escaped,
/// everything else raw, as Python's `json.dumps(ensure_ascii=False)`).
pub fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut from = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[from..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{:04x}", b);
        } else {
            out.push_str(esc);
        }
        from = i + 1;
    }
    out.push_str(&s[from..]);
    out.push('"');
}

/// Write one list item of the domain's tool response (keys sorted) and return the sentence the
/// answer says about it.
fn item(domain: Domain, rng: &mut Rng, ctx: &mut String) -> Sentence {
    let note = *rng.pick(NOTES);
    let lit = |s: &str| Piece::Lit(s.to_owned());
    let fact = |r: String, w: String| Piece::Fact { right: r, wrong: w };
    let pieces = match domain {
        Domain::Weather => {
            let city = *rng.pick(CITIES);
            let cond = *rng.pick(CONDITIONS);
            let d = date(rng);
            let t = i64::try_from(rng.below(400)).unwrap_or(0) - 100;
            let wind = rng.range(0, 90);
            let hum = rng.range(20, 100);
            ctx.push_str("{\"city\": ");
            push_json_str(ctx, city);
            ctx.push_str(", \"condition\": ");
            push_json_str(ctx, cond);
            let _ = write!(ctx, ", \"date\": \"{d}\", \"humidity\": {hum}, \"note\": ");
            push_json_str(ctx, note);
            let _ = write!(
                ctx,
                ", \"temp_c\": {}, \"wind_kmh\": {wind}}}",
                temp(t).trim_end_matches("°C")
            );
            vec![
                lit("On "),
                lit(&d),
                lit(", "),
                fact(city.to_owned(), rng.pick_other(CITIES, city).to_owned()),
                lit(" will see "),
                fact(cond.to_owned(), rng.pick_other(CONDITIONS, cond).to_owned()),
                lit(" with highs around "),
                fact(
                    temp(t),
                    temp(t + 35 + i64::try_from(rng.below(80)).unwrap_or(0)),
                ),
                lit(" and wind at "),
                fact(format!("{wind} km/h"), format!("{} km/h", wind + 12)),
                lit("."),
            ]
        }
        Domain::Events => {
            let title = *rng.pick(TITLES);
            let venue = *rng.pick(VENUES);
            let d = date(rng);
            let price = rng.range(0, 250);
            let id = rng.range(1000, 9999);
            let _ = write!(
                ctx,
                "{{\"date\": \"{d}\", \"event_id\": \"EVT-{id}\", \"note\": "
            );
            push_json_str(ctx, note);
            let _ = write!(ctx, ", \"price_eur\": {price}, \"title\": ");
            push_json_str(ctx, title);
            ctx.push_str(", \"venue\": ");
            push_json_str(ctx, venue);
            ctx.push('}');
            vec![
                lit("“"),
                lit(title),
                lit(&format!("” (EVT-{id}) is on ")),
                fact(d.clone(), date(rng)),
                lit(" at "),
                fact(venue.to_owned(), rng.pick_other(VENUES, venue).to_owned()),
                lit("; tickets cost "),
                fact(format!("€{price}"), format!("€{}", price + 15)),
                lit("."),
            ]
        }
        Domain::Hotels => {
            let name = *rng.pick(HOTELS);
            let city = *rng.pick(CITIES);
            let price = rng.range(40, 900) * 100;
            let rating = rng.range(25, 50);
            let rooms = rng.range(1, 20);
            ctx.push_str("{\"city\": ");
            push_json_str(ctx, city);
            ctx.push_str(", \"name\": ");
            push_json_str(ctx, name);
            ctx.push_str(", \"note\": ");
            push_json_str(ctx, note);
            let _ = write!(
                ctx,
                ", \"price_jpy\": {price}, \"rating\": {}.{}, \"rooms_left\": {rooms}}}",
                rating / 10,
                rating % 10
            );
            vec![
                lit(name),
                lit(" in "),
                fact(city.to_owned(), rng.pick_other(CITIES, city).to_owned()),
                lit(" is rated "),
                fact(
                    format!("{}.{} ★", rating / 10, rating % 10),
                    format!("{}.{} ★", (rating + 7) / 10, (rating + 7) % 10),
                ),
                lit(" and costs "),
                fact(format!("¥{price}"), format!("¥{}", price + 2400)),
                lit(" per night, with "),
                fact(rooms.to_string(), (rooms + 3).to_string()),
                lit(" rooms left."),
            ]
        }
        Domain::Flights => {
            let from = *rng.pick(CITIES);
            let to = rng.pick_other(CITIES, from);
            let dep = format!("{:02}:{:02}", rng.range(0, 23), rng.range(0, 11) * 5);
            let gate = format!(
                "{}{}",
                rng.pick(&["A", "B", "C", "D", "É"]),
                rng.range(1, 40)
            );
            let status = *rng.pick(STATUSES);
            let code = format!(
                "{}{}",
                rng.pick(&["LH", "AF", "JL", "LX", "TP", "SK"]),
                rng.range(100, 9999)
            );
            let _ = write!(
                ctx,
                "{{\"departure\": \"{dep}\", \"flight\": \"{code}\", \"from\": "
            );
            push_json_str(ctx, from);
            let _ = write!(ctx, ", \"gate\": \"{gate}\", \"note\": ");
            push_json_str(ctx, note);
            ctx.push_str(", \"status\": ");
            push_json_str(ctx, status);
            ctx.push_str(", \"to\": ");
            push_json_str(ctx, to);
            ctx.push('}');
            vec![
                lit("Flight "),
                lit(&code),
                lit(" from "),
                fact(from.to_owned(), rng.pick_other(CITIES, from).to_owned()),
                lit(" to "),
                fact(to.to_owned(), rng.pick_other(CITIES, to).to_owned()),
                lit(" leaves at "),
                fact(
                    dep,
                    format!("{:02}:{:02}", rng.range(0, 23), rng.range(0, 11) * 5),
                ),
                lit(" from gate "),
                fact(gate.clone(), format!("{gate}0")),
                lit(" — status: "),
                fact(
                    status.to_owned(),
                    rng.pick_other(STATUSES, status).to_owned(),
                ),
                lit("."),
            ]
        }
        Domain::Products => {
            let name = *rng.pick(PRODUCTS);
            let cents = rng.range(499, 99_999);
            let stock = *rng.pick(STOCK);
            let rating = rng.range(20, 50);
            let sku = rng.range(100_000, 999_999);
            ctx.push_str("{\"name\": ");
            push_json_str(ctx, name);
            ctx.push_str(", \"note\": ");
            push_json_str(ctx, note);
            let _ = write!(
                ctx,
                ", \"price_eur\": {}.{:02}, \"rating\": {}.{}, \"sku\": \"SKU-{sku}\", \"stock\": ",
                cents / 100,
                cents % 100,
                rating / 10,
                rating % 10
            );
            push_json_str(ctx, stock);
            ctx.push('}');
            vec![
                lit("The "),
                lit(name),
                lit(&format!(" (SKU-{sku}) costs ")),
                fact(
                    format!("€{}.{:02}", cents / 100, cents % 100),
                    format!("€{}.{:02}", cents / 100 + 20, cents % 100),
                ),
                lit(", is "),
                fact(stock.to_owned(), rng.pick_other(STOCK, stock).to_owned()),
                lit(" and is rated "),
                fact(
                    format!("{}.{}/5", rating / 10, rating % 10),
                    format!("{}.{}/5", (rating + 6) / 10, (rating + 6) % 10),
                ),
                lit("."),
            ]
        }
    };
    Sentence { sep: " ", pieces }
}

/// Build the shared part of base dialogue `base`.
#[must_use]
pub fn base(opts: &Options, base: usize) -> Base {
    let mut rng = Rng::new(opts.seed, 1, base as u64);
    let domain = *rng.pick(&DOMAINS);
    let ratio = opts.context_max as f64 / opts.context_min.max(1) as f64;
    let target = (opts.context_min as f64 * ratio.powf(rng.unit().powf(opts.skew))) as usize;
    let mut ctx = String::with_capacity(target + 4096);
    let mut plan = Vec::new();
    let intro = *rng.pick(INTROS);
    plan.push(Sentence {
        sep: "",
        pieces: vec![Piece::Lit(intro.to_owned())],
    });
    let mentioned = rng.range(2, 7);
    let city = *rng.pick(CITIES);

    // A small side response, before or after the main ones.
    let mut side = String::new();
    if rng.chance(0.6) {
        let _ = write!(
            side,
            "{{\"content\": {{\"currency\": \"EUR\", \"rate\": 1.{:04}, \"source\": \"ECB\", \"symbol\": \"€\"}}, \"name\": \"Currency Converter\", \"role\": \"tool\"}}",
            rng.range(0, 9999)
        );
    }
    let side_first = rng.chance(0.5);
    if side_first && !side.is_empty() {
        ctx.push_str(&side);
        ctx.push('\n');
    }
    // Main responses: pages of at most ~24 KB, filled with items up to the target size.
    let mut page = 1;
    let mut items = 0usize;
    loop {
        let _ = write!(ctx, "{{\"content\": {{\"{}\": [", domain.list_key());
        let page_start = ctx.len();
        let mut first = true;
        while ctx.len() < target && ctx.len() - page_start < 24_000 || items == 0 {
            if !first {
                ctx.push_str(", ");
            }
            first = false;
            let s = item(domain, &mut rng, &mut ctx);
            if items < mentioned {
                plan.push(s);
            }
            items += 1;
        }
        let _ = write!(ctx, "], \"page\": {page}}}, \"name\": ");
        push_json_str(&mut ctx, domain.tool());
        ctx.push_str(", \"role\": \"tool\"}");
        page += 1;
        if ctx.len() >= target {
            break;
        }
        ctx.push('\n');
    }
    if !side_first && !side.is_empty() {
        ctx.push('\n');
        ctx.push_str(&side);
    }
    // Paragraph layout: items as a list or as running text.
    let bullets = rng.chance(0.4);
    for (k, s) in plan.iter_mut().enumerate().skip(1) {
        s.sep = if bullets {
            "\n- "
        } else if k == 1 {
            "\n\n"
        } else {
            " "
        };
    }
    plan.push(Sentence {
        sep: "\n\n",
        pieces: vec![Piece::Lit((*rng.pick(OUTROS)).to_owned())],
    });

    let query = match domain {
        Domain::Weather => format!("What’s the weather going to be in {city} over the next {mentioned} days? Je pars demain ✈️"),
        Domain::Events => format!("Can you find upcoming events about “{}” near {city}? Page 1 is fine.", rng.pick(TITLES)),
        Domain::Hotels => format!("I need a hotel in {city} for two nights — something under ¥40,000 please 🙏"),
        Domain::Flights => format!("Is my flight from {city} on time today? 航班状态"),
        Domain::Products => format!("Find me a {} under 150 € with good reviews.", rng.pick(PRODUCTS)),
    };
    let mut tools = String::from("[");
    tools.push_str(domain.schema());
    for _ in 0..rng.range(1, 3) {
        tools.push_str(", ");
        tools.push_str(rng.pick_str(DISTRACTOR_TOOLS));
    }
    tools.push(']');
    let mut tool_call = String::from("{\"name\": ");
    push_json_str(&mut tool_call, domain.tool());
    tool_call.push_str(", \"arguments\": {\"city\": ");
    push_json_str(&mut tool_call, city);
    let _ = write!(tool_call, ", \"page\": 1, \"days\": {mentioned}}}}}");
    Base {
        id: format!("toolace_synth_{base:06}"),
        query,
        context: ctx,
        tools,
        tool_call,
        plan,
    }
}

/// An inserted sentence: after which plan sentence, its text, its label.
struct Insert {
    after: usize,
    text: &'static str,
    label: &'static str,
}

/// Render the answer of a variant: the plan with some facts falsified and some sentences
/// inserted, each change becoming a label.
fn render(
    plan: &[Sentence],
    wrong: &[(usize, usize)],
    inserts: &[Insert],
    label: &str,
) -> (String, Vec<Label>, Vec<(usize, usize)>) {
    let mut out = String::with_capacity(1024);
    let mut chars = 0usize;
    let mut labels = Vec::new();
    let mut sentences = Vec::new();
    let push = |out: &mut String, chars: &mut usize, s: &str| {
        out.push_str(s);
        *chars += s.chars().count();
    };
    for (si, s) in plan.iter().enumerate() {
        push(&mut out, &mut chars, s.sep);
        let start = chars;
        for (pi, p) in s.pieces.iter().enumerate() {
            match p {
                Piece::Lit(t) => push(&mut out, &mut chars, t),
                Piece::Fact { right, wrong: w } => {
                    if wrong.contains(&(si, pi)) {
                        let a = chars;
                        push(&mut out, &mut chars, w);
                        labels.push(Label {
                            start: a,
                            end: chars,
                            text: w.clone(),
                            label: label.to_owned(),
                        });
                    } else {
                        push(&mut out, &mut chars, right);
                    }
                }
            }
        }
        sentences.push((start, chars));
        for ins in inserts.iter().filter(|i| i.after == si) {
            push(&mut out, &mut chars, " ");
            let a = chars;
            push(&mut out, &mut chars, ins.text);
            labels.push(Label {
                start: a,
                end: chars,
                text: ins.text.to_owned(),
                label: ins.label.to_owned(),
            });
            sentences.push((a, chars));
        }
    }
    (out, labels, sentences)
}

/// Record `i` (variant `i % 4` of base `i / 4`), given its base.
#[must_use]
pub fn record(opts: &Options, b: &Base, i: usize) -> Record {
    let mut rng = Rng::new(opts.seed, 2, i as u64);
    let base = i / 4;
    let mut variant = VARIANTS[i % 4];
    let mut id = format!("{}__{variant}", b.id);
    let mut ctype = variant;
    if variant == "clean" && rng.chance(0.1) {
        // Already hallucinated in the source: keeps its own type.
        id.push_str("__recovered");
        variant = if rng.chance(0.5) {
            "overgeneration"
        } else {
            "contradiction"
        };
        ctype = variant;
    }
    let facts: Vec<(usize, usize)> = b
        .plan
        .iter()
        .enumerate()
        .flat_map(|(si, s)| {
            s.pieces
                .iter()
                .enumerate()
                .filter(|(_, p)| matches!(p, Piece::Fact { .. }))
                .map(move |(pi, _)| (si, pi))
        })
        .collect();
    // Sentences an insert may follow: the intro and the item sentences (not the outro).
    let last_body = b.plan.len() - 2;
    let mut wrong = Vec::new();
    let mut inserts = Vec::new();
    match variant {
        "contradiction" => {
            let n = if rng.chance(0.15) { 2 } else { 1 };
            while wrong.len() < n.min(facts.len()) {
                let f = *rng.pick(&facts);
                if !wrong.contains(&f) {
                    wrong.push(f);
                }
            }
        }
        "missing_tool" => inserts.push(Insert {
            after: rng.range(1, last_body),
            text: rng.pick_str(MISSING_TOOL),
            label: "missing_tool",
        }),
        "overgeneration" => {
            let n = if rng.chance(0.3) { 2 } else { 1 };
            for _ in 0..n {
                inserts.push(Insert {
                    after: rng.range(0, last_body + 1),
                    text: rng.pick_str(OVERGEN),
                    label: "overgeneration",
                });
            }
        }
        _ => {}
    }
    let (output, mut labels, sentences) = render(&b.plan, &wrong, &inserts, ctype);
    if labels.len() > 1 && rng.chance(0.5) {
        labels.reverse();
    }
    Record {
        id,
        base,
        corruption_type: ctype,
        output,
        labels,
        sentences,
    }
}

/// How an injected broken line is broken, or `None` for a valid line.
#[must_use]
pub fn broken_kind(opts: &Options, rec: &Record, i: usize) -> Option<&'static str> {
    if opts.broken <= 0.0 {
        return None;
    }
    let mut rng = Rng::new(opts.seed, 3, i as u64);
    if !rng.chance(opts.broken) {
        return None;
    }
    let mut kind = *rng.pick(&BROKEN_KINDS);
    let span_kind = matches!(
        kind,
        "offset_float"
            | "offset_string"
            | "reversed_span"
            | "out_of_bounds"
            | "text_mismatch"
            | "byte_offsets"
            | "unknown_label"
    );
    if span_kind && rec.labels.is_empty() {
        kind = "missing_output";
    }
    if kind == "duplicate_id" && i == 0 {
        kind = "invalid_json";
    }
    Some(kind)
}

fn push_labels(line: &mut String, labels: &[Label], offset_repr: Option<&str>) {
    line.push('[');
    for (k, l) in labels.iter().enumerate() {
        if k > 0 {
            line.push_str(", ");
        }
        let _ = write!(line, "{{\"end\": {}, \"label\": ", l.end);
        push_json_str(line, &l.label);
        match (k, offset_repr) {
            (0, Some("float")) => {
                let _ = write!(line, ", \"start\": {}.0, \"text\": ", l.start);
            }
            (0, Some("string")) => {
                let _ = write!(line, ", \"start\": \"{}\", \"text\": ", l.start);
            }
            _ => {
                let _ = write!(line, ", \"start\": {}, \"text\": ", l.start);
            }
        }
        push_json_str(line, &l.text);
        line.push('}');
    }
    line.push(']');
}

/// Code-point offset `cp` of `s` as a UTF-8 byte offset (the classic bug the broken kind
/// `byte_offsets` reproduces).
fn byte_offset(s: &str, cp: usize) -> usize {
    s.char_indices().nth(cp).map_or(s.len(), |(b, _)| b)
}

/// Append record `rec` (of base `b`) as one JSONL line, broken as `broken` says.
pub fn write_record(
    line: &mut String,
    b: &Base,
    rec: &Record,
    broken: Option<&str>,
    prev_id: &str,
) {
    let line_start = line.len();
    let mut labels = rec.labels.clone();
    let mut offset_repr = None;
    let mut base_id = b.id.as_str();
    let mut id = rec.id.as_str();
    let other_base;
    match broken {
        Some("offset_float") => offset_repr = Some("float"),
        Some("offset_string") => offset_repr = Some("string"),
        Some("reversed_span") => {
            let l = &mut labels[0];
            std::mem::swap(&mut l.start, &mut l.end);
        }
        Some("out_of_bounds") => labels[0].end = rec.output.chars().count() + 3,
        Some("text_mismatch") => labels[0].text = format!("{} ", labels[0].text),
        Some("byte_offsets") => {
            for l in &mut labels {
                l.start = byte_offset(&rec.output, l.start);
                l.end = byte_offset(&rec.output, l.end);
            }
        }
        Some("unknown_label") => labels[0].label = "halucination".to_owned(),
        Some("duplicate_id") => id = prev_id,
        Some("base_id_mismatch") => {
            other_base = format!("toolace_synth_{:06}", rec.base + 1);
            base_id = other_base.as_str();
        }
        _ => {}
    }
    line.push_str("{\"id\": ");
    push_json_str(line, id);
    line.push_str(", \"query\": ");
    push_json_str(line, &b.query);
    line.push_str(", \"context\": ");
    push_json_str(line, &b.context);
    if broken != Some("missing_output") {
        line.push_str(", \"output\": ");
        push_json_str(line, &rec.output);
    }
    line.push_str(", \"hallucination_labels\": ");
    push_labels(line, &labels, offset_repr);
    line.push_str(", \"meta\": {\"source\": \"synthetic/spanreview-gen\", \"base_id\": ");
    push_json_str(line, base_id);
    line.push_str(", \"corruption_type\": ");
    push_json_str(line, rec.corruption_type);
    line.push_str(", \"tools\": ");
    line.push_str(&b.tools);
    line.push_str(", \"tool_call\": ");
    line.push_str(&b.tool_call);
    line.push_str("}}");
    if broken == Some("invalid_json") {
        // Cut inside the context: an unterminated string, as a truncated write leaves it.
        let mut cut = line_start + (line.len() - line_start) / 2;
        while !line.is_char_boundary(cut) {
            cut -= 1;
        }
        line.truncate(cut);
    }
    line.push('\n');
}

/// Detector behaviour for prediction files: detector `k` draws from its own stream.
struct Profile {
    name_label: bool,
    recall: f64,
    leading_space: f64,
    trim_end: f64,
    false_pos: f64,
}

fn profile(k: usize) -> Profile {
    match k {
        0 => Profile {
            name_label: false,
            recall: 0.85,
            leading_space: 0.3,
            trim_end: 0.1,
            false_pos: 0.3,
        },
        1 => Profile {
            name_label: true,
            recall: 0.7,
            leading_space: 0.05,
            trim_end: 0.3,
            false_pos: 0.8,
        },
        _ => Profile {
            name_label: false,
            recall: 0.5 + 0.05 * (k % 8) as f64,
            leading_space: 0.2,
            trim_end: 0.2,
            false_pos: 0.5,
        },
    }
}

/// Append record `rec` as a prediction line of detector `k` (`gold_spans` + `pred_spans`).
pub fn write_prediction(line: &mut String, opts: &Options, rec: &Record, k: usize, i: usize) {
    let p = profile(k);
    let mut rng = Rng::new(opts.seed, 100 + k as u64, i as u64);
    let chars: Vec<usize> = rec
        .output
        .char_indices()
        .map(|(b, _)| b)
        .chain(std::iter::once(rec.output.len()))
        .collect();
    let is_space = |cp: usize| rec.output[chars[cp]..].starts_with(' ');
    let mut preds: Vec<(usize, usize, String, f64)> = Vec::new();
    for l in &rec.labels {
        if !rng.chance(p.recall) {
            continue;
        }
        let mut s = l.start;
        let mut e = l.end;
        if s > 0 && is_space(s - 1) && rng.chance(p.leading_space) {
            s -= 1;
        }
        if rng.chance(p.trim_end) {
            // Stop at the last space inside the span, if any.
            if let Some(c) = (s + 1..e).rev().find(|&c| is_space(c)) {
                e = c;
            }
        }
        let conf = 0.5 + 0.5 * rng.unit();
        preds.push((s, e, l.label.clone(), conf));
    }
    while rng.chance(p.false_pos) && preds.len() < 6 {
        let &(s, e) = rng.pick(&rec.sentences);
        if s < e {
            let conf = 0.3 + 0.5 * rng.unit();
            preds.push((s, e, "overgeneration".to_owned(), conf));
        }
    }
    preds.sort_by_key(|x| (x.0, x.1));
    line.push_str("{\"id\": ");
    push_json_str(line, &rec.id);
    line.push_str(", \"output\": ");
    push_json_str(line, &rec.output);
    line.push_str(", \"corruption_type\": ");
    push_json_str(line, rec.corruption_type);
    line.push_str(", \"gold_spans\": ");
    push_labels(line, &rec.labels, None);
    line.push_str(", \"pred_spans\": [");
    for (n, (s, e, label, conf)) in preds.iter().enumerate() {
        if n > 0 {
            line.push_str(", ");
        }
        let _ = write!(line, "{{\"start\": {s}, \"end\": {e}, \"text\": ");
        push_json_str(line, &rec.output[chars[*s]..chars[*e]]);
        line.push_str(", \"label\": ");
        push_json_str(line, if p.name_label { "ensemble" } else { label });
        let _ = write!(line, ", \"confidence\": {conf:.6}}}");
    }
    line.push_str("]}\n");
}

/// Generate records `from..to` into `out` (and detector `k`'s prediction lines into
/// `preds[k]`); returns the ids and kinds of broken lines written, with their 0-based index.
pub fn generate_range(
    opts: &Options,
    from: usize,
    to: usize,
    out: &mut String,
    preds: &mut [String],
) -> Vec<(usize, String, &'static str)> {
    let mut broken = Vec::new();
    let mut cur: Option<(usize, Base)> = None;
    let mut prev_id = String::new();
    if from > 0 {
        let b = base(opts, (from - 1) / 4);
        prev_id = record(opts, &b, from - 1).id;
    }
    for i in from..to {
        if cur.as_ref().is_none_or(|(n, _)| *n != i / 4) {
            cur = Some((i / 4, base(opts, i / 4)));
        }
        let Some((_, b)) = cur.as_ref() else { continue };
        let rec = record(opts, b, i);
        let kind = broken_kind(opts, &rec, i);
        write_record(out, b, &rec, kind, &prev_id);
        if let Some(k) = kind {
            broken.push((i, rec.id.clone(), k));
        }
        for (k, p) in preds.iter_mut().enumerate() {
            write_prediction(p, opts, &rec, k, i);
        }
        prev_id = rec.id;
    }
    broken
}
