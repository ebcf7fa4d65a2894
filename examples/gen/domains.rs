//! What the synthetic dialogues talk about: value pools in many scripts, five tool domains
//! (weather, events, hotels, flights, products), and the writer of one tool-response item with
//! the answer sentence that reports it.

use std::fmt::Write as _;

use super::{push_json_str, Piece, Rng, Sentence};

// Value pools. Every pool mixes scripts; some strings need JSON escaping (quotes, backslashes,
// newlines) and some hold combining marks (decomposed é, ã), emoji with variation selectors,
// skin-tone modifiers and ZWJ sequences (several code points, one glyph).

pub const CITIES: &[&str] = &[
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
pub const CONDITIONS: &[&str] = &[
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
pub const VENUES: &[&str] = &[
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
pub const TITLES: &[&str] = &[
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
pub const HOTELS: &[&str] = &[
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
pub const PRODUCTS: &[&str] = &[
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
pub const STATUSES: &[&str] = &["on time", "delayed", "boarding", "cancelled", "departed"];
pub const STOCK: &[&str] = &["in stock", "out of stock", "back-ordered", "only 2 left"];
pub const NOTES: &[&str] = &[
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
pub const INTROS: &[&str] = &[
    "Here’s what I found 🔎:",
    "Voilà — here’s the summary you asked for:",
    "Sure! Here’s the latest from the tool ✅.",
    "Bien sûr: the results are below 👇.",
    "以下是结果 — here’s the overview:",
    "Great question! Here’s a quick rundown (data as of today, 09:00 CET):",
    "I’ve checked the service for you 🙂.",
];
pub const OUTROS: &[&str] = &[
    "Let me know if you’d like more details — happy to help! 😊",
    "Anything else? I’m here 👋.",
    "Hope this helps, and have a great day ☀️!",
    "N’hésitez pas si vous avez d’autres questions.",
    "Let me know if there's anything else I can assist you with!",
];
pub const OVERGEN: &[&str] = &[
    "Comparable services in the region have shown similar behavior recently.",
    "Locals say it’s the busiest week since 2019 📈.",
    "Prices are expected to drop by about 15 % next month.",
    "Most travellers rate this option 5★ on independent review sites.",
    "東京 offices report the same trend this quarter.",
    "This was confirmed by the provider’s support team this morning.",
    "Experts at the Université de Genève consider this the best choice.",
    "It’s also the most eco-friendly option 🌱, with 40 % lower emissions.",
];
pub const MISSING_TOOL: &[&str] = &[
    "I’ve also booked a table for two at Café Lumière.",
    "I’ve sent the full itinerary to your e-mail 📧.",
    "I’ve added it to your calendar with a reminder at 07:30 ⏰.",
    "I went ahead and paid the €25 deposit for you.",
    "I converted the total with today’s rate: ¥18,240.",
    "I’ve also texted the details to your phone 📱.",
    "I’ve reserved two seats in row 12 for you.",
];
pub const DISTRACTOR_TOOLS: &[&str] = &[
    r#"{"name": "getRandom", "description": "Retrieve a random sequence of characters matching the provided query attributes", "parameters": {"type": "dict", "properties": {"length": {"description": "Sequence length", "type": "int"}, "case": {"description": "Force sequence to match case argument", "type": "string", "default": "all"}}, "required": ["length"]}, "required": null}"#,
    r#"{"name": "Currency Converter", "description": "Converts an amount between currencies (€, $, ¥, £) at the ECB reference rate.", "parameters": {"type": "dict", "properties": {"amount": {"description": "Amount to convert", "type": "float"}, "from": {"description": "ISO code", "type": "string"}, "to": {"description": "ISO code", "type": "string"}}, "required": ["amount", "from", "to"]}, "required": null}"#,
    r#"{"name": "Translate Text", "description": "Translates text between languages, e.g. “bonjour” → “hello”.", "parameters": {"type": "dict", "properties": {"text": {"description": "Text to translate", "type": "string"}, "target": {"description": "Target language code", "type": "string", "default": "en"}}, "required": ["text"]}, "required": null}"#,
    r#"{"name": "Retrieve Collection Fees", "description": "This endpoint returns the various collection fees for a given slug.", "parameters": {"type": "dict", "properties": {"slug": {"description": "The slug of the collection", "type": "string"}}, "required": ["slug"]}, "required": null}"#,
    r#"{"name": "Time Zone Lookup", "description": "Local time and UTC offset of a city (e.g. Zürich → UTC+01:00).", "parameters": {"type": "dict", "properties": {"city": {"description": "City name", "type": "string"}}, "required": ["city"]}, "required": null}"#,
];

/// The kinds of tool dialogue the generator writes.
#[derive(Debug, Clone, Copy)]
pub enum Domain {
    Weather,
    Events,
    Hotels,
    Flights,
    Products,
}

pub const DOMAINS: [Domain; 5] = [
    Domain::Weather,
    Domain::Events,
    Domain::Hotels,
    Domain::Flights,
    Domain::Products,
];

impl Domain {
    pub fn tool(self) -> &'static str {
        match self {
            Self::Weather => "Get Weather Forecast",
            Self::Events => "GetFutureEventsByTopic",
            Self::Hotels => "Search Hotels",
            Self::Flights => "Flight Status",
            Self::Products => "Product Search",
        }
    }

    /// Key of the list in the tool response; sorts before `page`.
    pub fn list_key(self) -> &'static str {
        match self {
            Self::Weather => "forecast",
            Self::Events => "events",
            Self::Hotels => "hotels",
            Self::Flights => "flights",
            Self::Products => "items",
        }
    }

    pub fn schema(self) -> &'static str {
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

pub fn date(rng: &mut Rng) -> String {
    format!("2025-{:02}-{:02}", rng.range(1, 12), rng.range(1, 28))
}

pub fn temp(tenths: i64) -> String {
    let sign = if tenths < 0 { "-" } else { "" };
    let a = tenths.unsigned_abs();
    format!("{sign}{}.{}°C", a / 10, a % 10)
}

/// Write one list item of the domain's tool response (keys sorted) and return the sentence the
/// answer says about it.
pub fn item(domain: Domain, rng: &mut Rng, ctx: &mut String) -> Sentence {
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
