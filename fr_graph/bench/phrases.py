"""Vocabulary and paraphrase families of the LifecycleBench generator.

A *family* is one sentence frame of one template kind ("the change statement", "the
retraction", "the upcoming-event question", ...). Every kind has at least six families;
the last ~30% of each kind's families are held out (:func:`family_split`), so a classifier
or a ranker tuned on the dev split never saw the held-out frames. Topic clauses, values,
hedges, typos and date expressions vary on top of the frame, so no single surface shape
identifies a kind.

Placeholders: ``{c}`` a state clause ("I'm vegetarian"), ``{c_}`` the same clause
lower-cased at the start, ``{old}`` / ``{new}`` slot values, ``{noun}`` the topic's noun,
``{what}`` / ``{When}`` events and date adverbials, ``{do}`` / ``{np}`` a plan, ``{why}`` a
reason, ``{x}`` an aggregate member phrase, ``{amount}`` a formatted number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from fr_graph.core.ontology import Category

Split = Literal["dev", "heldout"]

HELDOUT_SHARE: Final = 0.3


def family_split(index: int, count: int) -> Split:
    """The split of family ``index`` of a kind with ``count`` families (last ~30% held out)."""
    heldout = max(1, round(count * HELDOUT_SHARE))
    return "heldout" if index >= count - heldout else "dev"


# --------------------------------------------------------------------------- frames

FRAMES: Final[dict[str, tuple[str, ...]]] = {
    # A plain statement of a current state (first mention of a preference, identity, ...).
    "assert": (
        "{c}",
        "{c}, in case that matters",
        "for context, {c_}",
        "not sure I ever told you but {c_}",
        "{c}. been that way for a while",
        "just so you know, {c_}",
        "{c} - figured you should know",
        "quick thing about me: {c_}",
        "{c}, fyi",
    ),
    # An explicit change of a replace-semantics preference.
    "change": (
        "switched my {noun} from {old} to {new}",
        "{c_new} now - {old} wasn't doing it for me anymore",
        "no more {old} for me, {c_new_} these days",
        "ditched {old}. {c_new}",
        "update on my {noun}: it's {new} now, not {old}",
        "changed my mind about {old}; {c_new_} now",
        "{c_new}. gave up on {old} last month",
        "after years of {old} I finally moved over to {new}",
        "{old} is out, {new} is in",
    ),
    # An implicit contradiction: the new state, stated as if it had always been so.
    "implicit": (
        "{c_new}",
        "{c_new}, which has been nice honestly",
        "ugh, long week. {c_new} so that's something",
        "{c_new} - still getting used to it",
        "random, but {c_new_}",
        "{c_new}, as usual",
        "so yeah, {c_new_}",
        "{c_new} and it's been fine",
    ),
    # A tentative update: the old value still holds (soft supersession).
    "tentative": (
        "thinking about switching my {noun} to {new}, not decided yet",
        "might go with {new} instead at some point, still on the fence",
        "toying with the idea of {new} for my {noun}",
        "considering {new}... we'll see",
        "maybe {new}? haven't committed to anything",
        "kind of tempted to try {new} as my {noun}, no idea yet",
        "I might change my {noun} to {new} eventually, just a thought",
        "part of me wants to try {new}, but probably not anytime soon",
    ),
    # A plan (projects) that may later be retracted.
    "plan": (
        "I'm planning to {do}",
        "decided I'm going to {do}",
        "big news: we're going to {do}",
        "next project: {do}",
        "we've started the process to {do}",
        "my goal for this year is to {do}",
        "I really want to {do} and I've already started on it",
        "ok it's official, I'm going to {do}",
    ),
    # A detail of a plan, stored under the plan's slot.
    "plan_detail": (
        "for {np}: {detail}",
        "re {np}, {detail}",
        "{detail} (that's for {np})",
        "progress on {np} - {detail}",
        "about {np}: {detail}",
        "small update, {np}: {detail}",
        "{detail}. all part of {np}",
    ),
    # Explicit retraction wordings.
    "retract": (
        "forget I mentioned {np}",
        "{np} is dead. {why}",
        "scrapped {np}, {why}",
        "{np} got cancelled",
        "{np} is not happening anymore",
        "pulling the plug on {np} - {why}",
        "we dropped {np}. {why}",
        "scratch {np}, {why}",
        "never mind about {np}, it's off",
        "{np}? yeah that's cancelled. {why}",
    ),
    # A dated event of a guarded category.
    "event": (
        "{What} is {when}",
        "heads up: {what} {when}",
        "don't let me forget, {what} {when}",
        "just booked {what} - it's {when}",
        "{When} I've got {what}",
        "reminder for myself: {what}, {when}",
        "{What} {when}, need to sort stuff out before then",
        "can't believe {what} is already {when}",
        "note to self - {what} {when}",
    ),
    # A member of an aggregate (hobby, language, pet, allergy).
    "member": (
        "{c}",
        "{c}, just so you know",
        "oh and {c_}",
        "{c} (been a while now)",
        "fyi {c_}",
        "another thing about me: {c_}",
        "{c}!!",
        "{c} - love it",
    ),
    # Ending an aggregate member (a completion of its slot).
    "drop": (
        "I gave up {x}",
        "quit {x} for good",
        "not doing {x} anymore",
        "I stopped {x} a while ago, just lost interest",
        "{x} is done for me",
        "hung up the {x} thing, too much time",
        "retired from {x}, honestly a relief",
    ),
    # A statement carrying a specific number.
    "number": (
        "{c}",
        "{c}, for the record",
        "ok so {c_}",
        "writing this down: {c_}",
        "{c}. wild, right?",
        "fyi {c_}",
        "{c} - just so it's somewhere",
        "{c}, no joke",
    ),
    # An explicit job/city/partner change (multi-version chains).
    "version": (
        "{change}",
        "big change: {change_}",
        "{change}. still sinking in",
        "so... {change_}",
        "life update - {change_}",
        "{change}, long story",
        "{change}. feels right",
    ),
}

HEDGES: Final = (
    "oh btw ",
    "fwiw ",
    "so ",
    "honestly ",
    "tbh ",
    "anyway, ",
    "ok so ",
    "random but ",
    "not sure if I said this, ",
    "hmm ",
)
TAILS: Final = (" lol", " haha", "!", " :)", "...", " anyway", " btw")

SMALL_TALK: Final = (
    "thanks, that helped a lot",
    "lol ok fair",
    "long day today, brain is fried",
    "it's raining again, of course",
    "can you keep it short this time",
    "good morning!",
    "ugh mondays",
    "that's hilarious",
    "ok let me think about it",
    "you're a lifesaver",
    "sorry, got distracted",
    "never mind, figured it out",
    "so tired this week",
    "what a weird week it has been",
    "wow the sunset tonight was unreal",
    "I should probably go to bed",
    "coffee first, questions later",
    "ha, nice one",
    "hmm not quite what I meant",
    "let's pick this up tomorrow",
    "that makes sense now",
    "ok that's enough for today",
    "my internet keeps dropping, sorry",
    "the neighbors are hammering something again",
    "just got back from a walk",
    "feeling pretty good today actually",
    "it's way too hot in here",
    "can you explain that again but simpler",
    "I keep forgetting to drink water",
    "weekend finally",
    "I spilled tea all over my desk",
    "power went out for an hour",
)

EPISODES: Final = (
    "watched {movie} last night, pretty good",
    "cooked {dish} for dinner, turned out ok",
    "my neighbor's kid is learning the trumpet. loudly",
    "found a great little bakery near the station",
    "the bus was packed this morning",
    "spent the afternoon cleaning the fridge",
    "tried {dish} at a new place, not bad",
    "re-watched {movie} with friends",
    "got caught in the rain without an umbrella",
    "my plant is finally growing a new leaf",
    "the café downstairs changed its music, it's all jazz now",
    "lost my keys for twenty minutes, they were in my pocket",
    "bought new socks, exciting life",
    "saw a fox in the park this morning",
    "the elevator at work is broken again",
    "a pigeon got into the kitchen, chaos",
    "finished a jigsaw puzzle finally",
    "my laptop fan sounds like a jet engine",
    "stayed up too late reading about {wiki}",
    "fell down a rabbit hole about {wiki}",
    "heard a great podcast episode about {wiki}",
    "made {dish} again, third time this month",
)
MOVIES: Final = (
    "Dune",
    "Past Lives",
    "Paddington 2",
    "Arrival",
    "Spirited Away",
    "Heat",
    "The Grand Budapest Hotel",
    "Oppenheimer",
    "Amelie",
    "Perfect Days",
    "Parasite",
    "Whiplash",
    "Up",
    "Drive My Car",
    "Moonlight",
)
DISHES: Final = (
    "shakshuka",
    "mushroom risotto",
    "pad see ew",
    "lentil soup",
    "tacos",
    "a big curry",
    "banana bread",
    "dumplings",
    "paella",
    "ramen",
    "lasagna",
    "pierogi",
    "jollof rice",
    "bibimbap",
    "mac and cheese",
)
WIKI: Final = (
    "octopus intelligence",
    "the history of salt",
    "medieval bridges",
    "deep sea vents",
    "the Voyager probes",
    "how maps lie",
    "ancient Roman concrete",
    "the Dancing Plague of 1518",
    "tardigrades",
    "the invention of the zipper",
    "Antarctic ice cores",
    "the Silk Road",
)

THIRD_PARTY: Final = (
    "my coworker {name} just started at {company}",
    "my friend {name} moved to {city}",
    "{name} from my old team is now a {job}",
    "my cousin {name} is vegan now",
    "my neighbor {name} got a new puppy",
    "{name} says {city} is overrated",
    "my friend {name} is learning {language}",
    "{name} got a job offer from {company}",
    "{name}'s rent went up again, poor guy",
    "my colleague {name} is into {hobby}",
    "{name} just came back from {city}",
    "my friend {name} is allergic to {allergen}",
)
OTHER_NAMES: Final = (
    "Dana",
    "Tomasz",
    "Ines",
    "Kofi",
    "Marta",
    "Ravi",
    "Yuki",
    "Oskar",
    "Leila",
    "Bruno",
    "Hana",
    "Felix",
    "Aisha",
    "Jonas",
    "Carmen",
    "Ade",
    "Nina",
    "Pablo",
    "Greta",
    "Omar",
    "Sofia",
    "Luca",
    "Mei",
    "Tariq",
)

# ----------------------------------------------------------------------- vocabulary

CITIES: Final = (
    ("Lisbon", "Portugal", "its trams and custard tarts"),
    ("Porto", "Portugal", "port wine cellars"),
    ("Madrid", "Spain", "the Prado museum"),
    ("Barcelona", "Spain", "Gaudi's architecture"),
    ("Berlin", "Germany", "its techno clubs"),
    ("Munich", "Germany", "Oktoberfest"),
    ("Vienna", "Austria", "its coffee houses"),
    ("Prague", "Czechia", "its old town square"),
    ("Krakow", "Poland", "Wawel castle"),
    ("Amsterdam", "the Netherlands", "its canals"),
    ("Copenhagen", "Denmark", "cycling"),
    ("Stockholm", "Sweden", "its archipelago"),
    ("Dublin", "Ireland", "its pubs"),
    ("Edinburgh", "Scotland", "its festival in August"),
    ("Manchester", "England", "football"),
    ("Toronto", "Canada", "the CN Tower"),
    ("Vancouver", "Canada", "mountains by the sea"),
    ("Denver", "the United States", "being a mile high"),
    ("Austin", "the United States", "live music"),
    ("Seattle", "the United States", "rain and coffee"),
    ("Chicago", "the United States", "deep dish pizza"),
    ("Mexico City", "Mexico", "its street food"),
    ("Bogota", "Colombia", "its altitude"),
    ("Buenos Aires", "Argentina", "tango"),
    ("Sao Paulo", "Brazil", "its sheer size"),
    ("Nairobi", "Kenya", "a national park inside the city"),
    ("Lagos", "Nigeria", "its music scene"),
    ("Cape Town", "South Africa", "Table Mountain"),
    ("Istanbul", "Turkey", "the Bosphorus"),
    ("Tokyo", "Japan", "its rail network"),
    ("Osaka", "Japan", "street food"),
    ("Seoul", "South Korea", "its cafes"),
    ("Singapore", "Singapore", "hawker centres"),
    ("Melbourne", "Australia", "its laneway coffee"),
    ("Auckland", "New Zealand", "sailing"),
    ("Chennai", "India", "its long beach"),
    ("Bangalore", "India", "its tech industry"),
    ("Hanoi", "Vietnam", "pho"),
    ("Marrakesh", "Morocco", "its souks"),
    ("Athens", "Greece", "the Acropolis"),
)
COMPANIES: Final = (
    ("Siemens", "Munich", "engineering"),
    ("Spotify", "Stockholm", "music streaming"),
    ("Shopify", "Ottawa", "e-commerce"),
    ("Atlassian", "Sydney", "software"),
    ("Philips", "Amsterdam", "health technology"),
    ("Zalando", "Berlin", "online fashion"),
    ("Unilever", "London", "consumer goods"),
    ("Novo Nordisk", "Bagsvaerd", "pharmaceuticals"),
    ("Infosys", "Bangalore", "IT services"),
    ("Mercado Libre", "Buenos Aires", "e-commerce"),
    ("Rakuten", "Tokyo", "e-commerce"),
    ("Canva", "Sydney", "design software"),
    ("Adyen", "Amsterdam", "payments"),
    ("Ericsson", "Stockholm", "telecom"),
    ("Airbus", "Toulouse", "aerospace"),
    ("Nestle", "Vevey", "food"),
    ("the city council", "town hall", "local government"),
    ("a small design studio", "", ""),
    ("the regional hospital", "", "healthcare"),
    ("a logistics startup", "", "logistics"),
    ("Deloitte", "London", "consulting"),
    ("IKEA", "Delft", "furniture"),
)
LANGUAGES: Final = (
    "Spanish",
    "French",
    "German",
    "Portuguese",
    "Italian",
    "Japanese",
    "Mandarin",
    "Korean",
    "Arabic",
    "Hindi",
    "Turkish",
    "Dutch",
    "Polish",
    "Swahili",
    "Greek",
    "Tamil",
    "Russian",
    "Vietnamese",
)
LANGUAGE_FACTS: Final = (
    "{L} is spoken by millions of people worldwide",
    "{L} has some tricky grammar for learners",
    "there are several regional dialects of {L}",
    "{L} uses its own set of idioms about food",
)
ALLERGENS: Final = (
    "peanuts",
    "shellfish",
    "penicillin",
    "cats",
    "pollen",
    "sesame",
    "tree nuts",
    "latex",
    "eggs",
    "soy",
    "bee stings",
    "dust mites",
    "kiwi",
)
PARTNERS: Final = (
    "Sam",
    "Alex",
    "Jordan",
    "Mika",
    "Noor",
    "Theo",
    "Priya",
    "Lucas",
    "Maya",
    "Rui",
    "Elena",
    "Daniel",
    "Zoe",
    "Kai",
    "Farah",
    "Jonah",
)
PET_NAMES: Final = (
    "Biscuit",
    "Luna",
    "Pepper",
    "Mochi",
    "Ziggy",
    "Olive",
    "Rocket",
    "Tofu",
    "Miso",
    "Bean",
    "Nacho",
    "Pickles",
    "Juniper",
    "Waffles",
)
PET_SPECIES: Final = (
    "cat",
    "dog",
    "rabbit",
    "parrot",
    "tortoise",
    "hamster",
    "beagle",
    "greyhound",
)
JOBS: Final = (
    "nurse",
    "electrician",
    "data analyst",
    "teacher",
    "barber",
    "architect",
    "chef",
    "paramedic",
    "software engineer",
    "accountant",
    "journalist",
    "physiotherapist",
    "graphic designer",
    "carpenter",
    "pharmacist",
    "social worker",
    "translator",
    "veterinarian",
    "lawyer",
    "librarian",
)


@dataclass(frozen=True, slots=True)
class Topic:
    """A slot with interchangeable values: clauses state a value, questions ask for it."""

    name: str
    category: Category
    attribute: str
    noun: str
    values: tuple[str, ...]
    clauses: tuple[str, ...]
    questions: tuple[str, ...]
    world: tuple[str, ...] = ()


PREFERENCE_TOPICS: Final = (
    Topic(
        "diet",
        Category.PREFERENCES,
        "diet",
        "diet",
        ("vegetarian", "vegan", "pescatarian", "keto", "flexitarian", "paleo"),
        (
            "I'm {v}",
            "I eat {v} these days",
            "I've been {v} for a while now",
            "I'm pretty strict about being {v}",
        ),
        (
            "What kind of diet am I on?",
            "what do I eat these days?",
            "if you planned a dinner for me, what diet should it fit?",
            "remind me what my diet is at the moment",
            "how do I eat currently?",
            "what eating style do I follow right now?",
        ),
        (
            "a {v} diet can be planned to cover all nutrients",
            "many restaurants now label {v} options on the menu",
        ),
    ),
    Topic(
        "coffee",
        Category.PREFERENCES,
        "coffee",
        "coffee order",
        (
            "flat white",
            "oat latte",
            "black americano",
            "cortado",
            "cold brew",
            "double espresso",
            "cappuccino",
        ),
        (
            "my usual coffee is a {v}",
            "I always order a {v}",
            "{v} every morning, no exceptions",
            "I'm a {v} person",
        ),
        (
            "What's my usual coffee order?",
            "what coffee should you get me?",
            "how do I take my coffee these days?",
            "what do I order at the cafe?",
            "remind me of my go-to coffee",
            "what's my morning coffee now?",
        ),
        ("a {v} is on the menu of most third-wave cafes",),
    ),
    Topic(
        "music",
        Category.PREFERENCES,
        "music_service",
        "music app",
        ("Spotify", "Apple Music", "Tidal", "YouTube Music", "Deezer", "Bandcamp"),
        ("I use {v} for music", "all my playlists live on {v}", "I listen to everything on {v}"),
        (
            "Which music app do I use?",
            "where do I listen to music these days?",
            "what's my music streaming service?",
            "where should you send playlist links?",
            "what do I stream music on right now?",
            "remind me which music service I'm on",
        ),
        ("{v} offers a family plan", "{v} has millions of tracks in its catalogue"),
    ),
    Topic(
        "notes",
        Category.PREFERENCES,
        "notes_app",
        "note-taking app",
        ("Notion", "Obsidian", "Apple Notes", "Evernote", "Bear", "a paper notebook"),
        ("I take all my notes in {v}", "{v} is where I keep my notes", "I use {v} for notes"),
        (
            "Where do I take notes?",
            "what note-taking app do I use?",
            "where should I put this note, what do I use?",
            "what's my notes setup now?",
            "which app holds my notes these days?",
            "what do I jot things down in?",
        ),
        ("{v} is popular with students for note-taking",),
    ),
    Topic(
        "phone",
        Category.PREFERENCES,
        "phone_preference",
        "phone",
        ("an iPhone", "a Pixel", "a Galaxy", "a Fairphone", "a OnePlus", "a Nokia flip phone"),
        ("I use {v}", "my phone is {v}", "I'm on {v} right now"),
        (
            "What phone do I use?",
            "which phone do I have these days?",
            "what kind of phone am I on?",
            "should the instructions be for my current phone, which is?",
            "what's my phone now?",
            "remind me which phone I carry",
        ),
        (),
    ),
    Topic(
        "reading",
        Category.PREFERENCES,
        "reading_format",
        "reading setup",
        ("paper books", "a Kindle", "audiobooks", "a Kobo", "library ebooks"),
        (
            "I read mostly on {v}",
            "I do all my reading with {v}",
            "{v} for me when it comes to reading",
        ),
        (
            "How do I usually read books?",
            "what's my reading format these days?",
            "should you recommend ebooks or print for me?",
            "how do I read now?",
            "what do I read on?",
            "remind me how I prefer to read",
        ),
        ("{v} are still popular despite streaming",),
    ),
    Topic(
        "workout",
        Category.PREFERENCES,
        "workout_time",
        "workout time",
        ("early mornings", "lunch breaks", "late evenings", "weekends only", "right after work"),
        ("I work out {v}", "my workouts happen {v}", "gym time for me is {v}"),
        (
            "When do I usually work out?",
            "what's my workout schedule?",
            "when should I plan my training sessions?",
            "what time of day do I exercise now?",
            "when do I hit the gym these days?",
            "remind me when I train",
        ),
        (),
    ),
    Topic(
        "seat",
        Category.PREFERENCES,
        "seat_preference",
        "seat preference",
        ("the aisle seat", "the window seat", "an exit row seat", "the front of the plane"),
        ("I always pick {v} on flights", "I book {v} whenever I fly", "{v} for me on planes"),
        (
            "What seat do I like on flights?",
            "which seat should you book me?",
            "aisle or window, what do I prefer now?",
            "what's my seat preference when flying?",
            "where do I like to sit on planes?",
            "remind me of my flight seat preference",
        ),
        (),
    ),
    Topic(
        "tea",
        Category.PREFERENCES,
        "tea",
        "tea",
        ("green tea", "earl grey", "chai", "rooibos", "mint tea", "oolong"),
        ("I drink {v} in the afternoons", "{v} is my tea", "my go-to tea is {v}"),
        (
            "What tea do I drink?",
            "what's my go-to tea?",
            "which tea should you pick for me?",
            "what tea do I have these days?",
            "remind me what tea I like",
            "what's my afternoon tea now?",
        ),
        ("{v} contains less caffeine than coffee",),
    ),
    Topic(
        "answers",
        Category.PREFERENCES,
        "response_style",
        "answer style",
        (
            "short bullet points",
            "detailed explanations",
            "one-line answers",
            "step-by-step walkthroughs",
            "casual chatty replies",
        ),
        ("I like {v} from you", "please give me {v}", "{v} work best for me"),
        (
            "How do I want you to answer?",
            "what answer style do I prefer?",
            "should your replies be long or short for me?",
            "what format do I like your answers in?",
            "how should you respond to me these days?",
            "remind me how I like answers",
        ),
        (),
    ),
    Topic(
        "streaming",
        Category.PREFERENCES,
        "tv_service",
        "streaming service",
        ("Netflix", "Disney+", "HBO Max", "Prime Video", "Mubi", "Apple TV+"),
        ("we watch everything on {v}", "I only pay for {v}", "{v} is our streaming service"),
        (
            "Which streaming service do I have?",
            "what do I watch shows on?",
            "where would this series be for me, which service do I use?",
            "what's my TV subscription now?",
            "what streaming do I pay for?",
            "remind me which streaming service I use",
        ),
        ("{v} releases new shows every month",),
    ),
)

CONTRADICTION_TOPICS: Final = (
    Topic(
        "commute",
        Category.LOGISTICAL,
        "commute",
        "commute",
        ("the bus", "my bike", "the train", "the car", "the tram", "an e-scooter"),
        ("I get to work on {v}", "I take {v} to work", "I commute by {v}"),
        (
            "How do I get to work?",
            "what's my commute like?",
            "how do I commute these days?",
            "how should I plan the trip to the office, what do I use?",
            "what do I ride to work?",
            "remind me how I get to the office",
        ),
        (),
    ),
    Topic(
        "sister",
        Category.RELATIONAL,
        "sister",
        "sister",
        tuple(c[0] for c in CITIES[:30]),
        ("my sister lives in {v}", "my sister is based in {v}", "my sister's place in {v} is tiny"),
        (
            "Where does my sister live?",
            "what city is my sister in?",
            "if I visit my sister, where am I going?",
            "where is my sister based now?",
            "remind me where my sister lives",
            "which city does my sister call home?",
        ),
        (),
    ),
    Topic(
        "car",
        Category.FINANCIAL,
        "car",
        "car",
        (
            "an old Civic",
            "a Subaru Outback",
            "a Toyota Corolla",
            "a VW Golf",
            "a Tesla Model 3",
            "a Ford pickup",
            "a Fiat Panda",
        ),
        ("I drive {v}", "my car is {v}", "I've got {v}"),
        (
            "What car do I drive?",
            "what's my car?",
            "what vehicle do I have now?",
            "what do I drive these days?",
            "which car should the parking permit be for?",
            "remind me what car I own",
        ),
        (),
    ),
    Topic(
        "work_location",
        Category.LOGISTICAL,
        "work_location",
        "work setup",
        ("from home", "from the office", "from a coworking space", "hybrid, two days in"),
        ("I work {v}", "I'm working {v}", "my job has me working {v}"),
        (
            "Where do I work from?",
            "do I work from home or the office?",
            "what's my work setup now?",
            "where am I working from these days?",
            "should meetings be remote for me, where do I work?",
            "remind me of my work arrangement",
        ),
        (),
    ),
    Topic(
        "manager",
        Category.RELATIONAL,
        "manager",
        "manager",
        ("Greta", "Oskar", "Leila", "Bruno", "Hana", "Tariq", "Carmen", "Jonas"),
        ("my manager is {v}", "I report to {v}", "{v} is my boss"),
        (
            "Who is my manager?",
            "who do I report to?",
            "who's my boss these days?",
            "who should I send the report to, my manager is?",
            "who is my manager now?",
            "remind me who I report to",
        ),
        (),
    ),
    Topic(
        "gym",
        Category.PREFERENCES,
        "gym",
        "gym",
        (
            "the climbing gym downtown",
            "the YMCA",
            "a CrossFit box",
            "the university gym",
            "the pool on Elm Street",
            "a boxing gym",
        ),
        ("I train at {v}", "my gym is {v}", "I've got a membership at {v}"),
        (
            "Which gym do I go to?",
            "where do I train?",
            "what's my gym these days?",
            "where is my gym membership?",
            "where do I work out?",
            "remind me which gym I use",
        ),
        (),
    ),
)


@dataclass(frozen=True, slots=True)
class VersionTopic:
    """A fact that changes several times (AV4): value chains with explicit change wording."""

    name: str
    category: Category
    attribute: str
    clauses: tuple[str, ...]
    changes: tuple[str, ...]
    current: tuple[str, ...]
    before: tuple[str, ...]


VERSION_TOPICS: Final = (
    VersionTopic(
        "employer",
        Category.IDENTITY,
        "employer",
        ("I work at {v}", "I'm at {v} these days", "my job is at {v}"),
        (
            "left {old}, joining {new} this month",
            "handed in my notice at {old}, I'm at {new} now",
            "first week at {new} done, {old} feels like ages ago",
            "new job at {new}! said goodbye to {old} on Friday",
            "I work at {new} now, left {old} after a long run",
            "officially moved from {old} to {new}",
            "{old} is behind me, I signed with {new}",
        ),
        (
            "Where do I work?",
            "who's my employer right now?",
            "what company am I at these days?",
            "which company do I work for?",
            "where am I working at the moment?",
            "remind me which company employs me",
        ),
        (
            "Where did I work before {latest}?",
            "what was my job before I joined {latest}?",
            "which company was I at prior to {latest}?",
            "before {latest}, who was my employer?",
            "remind me where I used to work before {latest}",
            "what company did I leave to go to {latest}?",
        ),
    ),
    VersionTopic(
        "city",
        Category.IDENTITY,
        "current_city",
        ("I live in {v}", "home is {v} for me", "I'm based in {v}"),
        (
            "we moved to {new}! bye {old}",
            "I live in {new} now, left {old} last month",
            "finally settled in {new} after leaving {old}",
            "packed up the {old} apartment, we're in {new} now",
            "relocated from {old} to {new} for work",
            "new address in {new}, the {old} lease is over",
            "said goodbye to {old}, {new} is home now",
        ),
        (
            "Where do I live?",
            "what city am I based in?",
            "where's home for me these days?",
            "what city should the weather be for?",
            "where am I living at the moment?",
            "remind me which city I live in",
        ),
        (
            "Where did I live before {latest}?",
            "what city was I in before moving to {latest}?",
            "before {latest}, where was home?",
            "which city did I leave for {latest}?",
            "remind me where I used to live before {latest}",
            "where was I based prior to {latest}?",
        ),
    ),
    VersionTopic(
        "partner",
        Category.RELATIONAL,
        "partner",
        ("I'm dating {v}", "my partner is {v}", "{v} and I are together"),
        (
            "{old} and I broke up. seeing someone new, {new}",
            "me and {old} ended a while back. i'm with {new} now",
            "I've been dating {new} for a couple of months, things with {old} are over",
            "{new} is my partner now, {old} and I split in the spring",
            "I'm with {new} these days. {old} moved on too",
            "after {old} and I split, I met {new}",
            "not with {old} anymore - {new} and I are together now",
        ),
        (
            "Who am I dating?",
            "who's my partner right now?",
            "who am I with these days?",
            "what's my partner's name?",
            "who should the dinner reservation include, my partner is?",
            "remind me who I'm seeing",
        ),
        (
            "Who was I dating before {latest}?",
            "who was my partner before {latest}?",
            "before {latest}, who was I with?",
            "who did I break up with before meeting {latest}?",
            "remind me who I was seeing before {latest}",
            "who was my ex before {latest}?",
        ),
    ),
)

PERSON_NAMES: Final = PARTNERS


@dataclass(frozen=True, slots=True)
class Plan:
    """A plan that can be retracted (AV7)."""

    key: str
    do: str
    np: str
    why: str
    details: tuple[str, ...]


PLANS: Final = (
    Plan(
        "puppy",
        "get a golden retriever puppy",
        "the puppy plan",
        "landlord said absolutely no pets",
        ("shortlisted two breeders", "picked a name already: Biscuit"),
    ),
    Plan(
        "exchange",
        "apply for an exchange semester in {city}",
        "the exchange application",
        "the funding fell through",
        ("asked two professors for references", "drafted the motivation letter"),
    ),
    Plan(
        "podcast",
        "start a podcast about local history",
        "the podcast idea",
        "nobody has time to edit it",
        ("bought a decent microphone", "recorded a pilot episode"),
    ),
    Plan(
        "etsy",
        "open an Etsy shop for my ceramics",
        "the Etsy shop",
        "the fees ate all the margin",
        ("took product photos over the weekend", "designed a logo"),
    ),
    Plan(
        "house",
        "buy a house outside {city}",
        "the house hunt",
        "interest rates made it impossible",
        ("viewed a place with a big garden", "talked to a mortgage broker"),
    ),
    Plan(
        "pilot",
        "get my private pilot licence",
        "the pilot licence thing",
        "it's way too expensive right now",
        ("booked a trial lesson", "read the theory book"),
    ),
    Plan(
        "remodel",
        "remodel the kitchen",
        "the kitchen remodel",
        "the contractor vanished",
        ("picked green tiles", "got a quote from a contractor"),
    ),
    Plan(
        "council",
        "run for the local council",
        "the council campaign",
        "my family needs me more right now",
        ("printed some flyers", "found a campaign manager"),
    ),
    Plan(
        "mba",
        "apply for an MBA in {city}",
        "the MBA application",
        "I realised I don't actually want it",
        ("signed up for the GMAT", "visited the campus"),
    ),
    Plan(
        "camper",
        "convert a van into a camper",
        "the van conversion",
        "the van failed inspection",
        ("ordered solar panels", "measured the cargo space"),
    ),
    Plan(
        "japan",
        "take a long trip through Japan next spring",
        "the Japan trip",
        "work won't give me the time off",
        ("looked at rail passes", "bookmarked ryokans in Kyoto"),
    ),
    Plan(
        "bakery",
        "open a small bakery with my brother",
        "the bakery project",
        "we couldn't find a location",
        ("wrote a business plan", "tested croissant recipes"),
    ),
    Plan(
        "marathon",
        "run the {city} marathon",
        "the marathon plan",
        "my knee can't handle the training",
        ("downloaded a training plan", "bought proper running shoes"),
    ),
    Plan(
        "garden",
        "start a community garden on our street",
        "the community garden",
        "the city said no to the plot",
        ("asked neighbours to sign up", "sketched the beds"),
    ),
    Plan(
        "novel",
        "write a novel during the winter",
        "the novel",
        "the stories I'd tell aren't mine to tell",
        ("outlined the first act", "named the main character"),
    ),
    Plan(
        "sabbatical",
        "take a three month sabbatical",
        "the sabbatical",
        "my manager said it's not possible this year",
        ("wrote a proposal", "picked the months"),
    ),
)

PLAN_QUESTIONS: Final = (
    "Am I still planning to {do}?",
    "what's the status of {np}?",
    "is {np} still on?",
    "how's {np} going?",
    "what happened with {np}?",
    "should you remind me about {np}?",
    "any news on {np}?",
    "am I going ahead with {np}?",
)


@dataclass(frozen=True, slots=True)
class Member:
    """One member of an aggregate set (a hobby, a language, a pet, an allergy)."""

    key: str
    clauses: tuple[str, ...]
    gerund: str = ""


HOBBIES: Final = (
    Member(
        "climbing",
        (
            "I go bouldering twice a week",
            "started climbing at the local gym",
            "climbing is my thing lately",
        ),
        "climbing",
    ),
    Member(
        "pottery",
        (
            "I do pottery on Thursday evenings",
            "I've been throwing pots at a studio",
            "pottery class is the highlight of my week",
        ),
        "pottery",
    ),
    Member(
        "chess",
        (
            "I play chess online most evenings",
            "chess is my late-night habit",
            "I'm in a chess club now",
        ),
        "chess",
    ),
    Member(
        "running",
        (
            "I run along the river on weekends",
            "I've gotten really into trail running",
            "running keeps me sane",
        ),
        "running",
    ),
    Member(
        "guitar",
        (
            "I play guitar",
            "I've been learning guitar from videos",
            "guitar practice every night lately",
        ),
        "guitar",
    ),
    Member(
        "gardening",
        (
            "I grow tomatoes and herbs on the balcony",
            "gardening takes up my Sundays",
            "I've got a little allotment",
        ),
        "gardening",
    ),
    Member(
        "photography",
        (
            "I shoot film photography",
            "photography walks are my weekend thing",
            "I bought a secondhand camera and shoot street photos",
        ),
        "photography",
    ),
    Member(
        "knitting",
        ("I knit", "knitting a sweater right now, my first one", "I knit while watching TV"),
        "knitting",
    ),
    Member(
        "sailing",
        (
            "I sail on the lake in summer",
            "I crew on a friend's sailboat",
            "sailing lessons were the best thing I did",
        ),
        "sailing",
    ),
    Member(
        "dnd",
        (
            "I run a D&D campaign for friends",
            "our D&D group meets every other Friday",
            "I'm a dungeon master",
        ),
        "D&D",
    ),
    Member(
        "birdwatching",
        (
            "I go birdwatching at dawn",
            "birding is my quiet hobby",
            "I keep a list of birds I've spotted",
        ),
        "birdwatching",
    ),
    Member(
        "salsa",
        ("I take salsa classes", "salsa dancing on Wednesdays", "I dance salsa with my friends"),
        "salsa",
    ),
    Member(
        "baking",
        (
            "I bake sourdough every weekend",
            "baking bread is my therapy",
            "I've been baking a lot of pastries",
        ),
        "baking",
    ),
    Member(
        "cycling",
        (
            "I cycle long distances on Sundays",
            "road cycling with a club",
            "I'm into cycling these days",
        ),
        "cycling",
    ),
    Member(
        "woodworking",
        (
            "I do woodworking in the garage",
            "I build small furniture",
            "woodworking is my new obsession",
        ),
        "woodworking",
    ),
    Member(
        "swimming",
        ("I swim laps before work", "open water swimming in summer", "swimming three times a week"),
        "swimming",
    ),
)
HOBBY_WORLD: Final = (
    "bouldering routes are graded on the V scale",
    "pottery wheels spin at variable speeds",
    "chess has more possible games than atoms in the universe",
    "trail running shoes have deeper lugs",
    "the guitar usually has six strings",
    "tomatoes need a lot of sun to ripen",
    "film photography has had a revival",
    "knitting needles come in many sizes",
    "sailing against the wind is called beating",
    "D&D was first published in 1974",
    "birdwatchers keep life lists of species",
    "salsa originated in New York among Caribbean communities",
    "sourdough uses wild yeast",
    "road cycling races often have team tactics",
    "woodworking joints like dovetails need no screws",
    "open water swimming needs a tow float",
)

MEMBER_CLAUSES: Final[dict[str, tuple[str, ...]]] = {
    "languages": (
        "I speak {L}",
        "I'm fluent in {L}",
        "I can get by in {L}",
        "I grew up speaking {L}",
    ),
    "allergies": (
        "I'm allergic to {A}",
        "{A} make me break out in hives",
        "I can't be around {A}, allergy",
        "I have a pretty bad {A} allergy",
    ),
    "pets": (
        "I have a {S} named {N}",
        "{N}, my {S}, is the best",
        "our {S} {N} is a menace",
        "we adopted a {S} called {N}",
    ),
}

AGGREGATE_QUESTIONS: Final[dict[str, tuple[str, ...]]] = {
    "hobbies": (
        "What are all my hobbies?",
        "list everything I do for fun",
        "what do I do in my free time?",
        "which hobbies am I into right now?",
        "remind me of all the activities I'm into",
        "what are my current pastimes?",
    ),
    "languages": (
        "What languages do I speak?",
        "which languages can I use?",
        "list all the languages I know",
        "what languages could I travel in?",
        "remind me of every language I speak",
        "how many languages do I speak, and which?",
    ),
    "allergies": (
        "What are all my allergies?",
        "what am I allergic to?",
        "which allergies should you keep in mind for me?",
        "list my allergies",
        "anything I should avoid because of allergies?",
        "remind me of my allergies",
    ),
    "pets": (
        "What pets do I have?",
        "list all my pets",
        "who are my animals?",
        "what are my pets' names?",
        "which pets live with me?",
        "remind me of my pets",
    ),
}
AGGREGATE_CATEGORY: Final[dict[str, Category]] = {
    "hobbies": Category.HOBBIES,
    "languages": Category.IDENTITY,
    "allergies": Category.HEALTH,
    "pets": Category.RELATIONAL,
}
AGGREGATE_ATTRIBUTE: Final[dict[str, str]] = {
    "hobbies": "hobby",
    "languages": "language",
    "allergies": "allergy",
    "pets": "pet",
}

IDENTITY_TOPICS: Final = (
    Topic(
        "hometown",
        Category.IDENTITY,
        "hometown",
        "hometown",
        tuple(c[0] for c in CITIES),
        ("I grew up in {v}", "I'm originally from {v}", "{v} is where I was born and raised"),
        (
            "Where did I grow up?",
            "what's my hometown?",
            "where am I originally from?",
            "which city was I raised in?",
            "where was I born?",
            "remind me where I'm from",
        ),
        ("{v} has a well-known old town",),
    ),
    Topic(
        "occupation",
        Category.IDENTITY,
        "occupation",
        "job",
        JOBS,
        ("I'm a {v}", "I work as a {v}", "{v} by trade"),
        (
            "What do I do for a living?",
            "what's my profession?",
            "what's my job?",
            "what is my line of work?",
            "what do I work as?",
            "remind me of my occupation",
        ),
        ("a {v} usually needs a professional qualification",),
    ),
    Topic(
        "education",
        Category.IDENTITY,
        "education",
        "degree",
        (
            "a degree in biology",
            "a master's in economics",
            "a PhD in chemistry",
            "a diploma in nursing",
            "a bachelor's in history",
            "a degree in civil engineering",
            "a master's in linguistics",
        ),
        ("I have {v}", "I finished {v} years ago", "I did {v}"),
        (
            "What did I study?",
            "what degree do I have?",
            "what's my education?",
            "what's my academic background?",
            "what did I get my degree in?",
            "remind me what I studied",
        ),
        (),
    ),
    Topic(
        "blood_type",
        Category.HEALTH,
        "blood_type",
        "blood type",
        ("O negative", "A positive", "B positive", "AB negative", "O positive"),
        ("my blood type is {v}", "I'm {v}, blood type wise", "blood type {v} here"),
        (
            "What's my blood type?",
            "which blood type do I have?",
            "if a form asks for my blood type, what is it?",
            "remind me of my blood type",
            "what blood group am I?",
            "do you know my blood type?",
        ),
        ("{v} is one of the eight main blood types",),
    ),
    Topic(
        "handedness",
        Category.IDENTITY,
        "handedness",
        "handedness",
        ("left-handed", "right-handed", "ambidextrous"),
        ("I'm {v}", "being {v} makes scissors interesting", "I've always been {v}"),
        (
            "Am I left- or right-handed?",
            "which hand do I write with?",
            "what's my handedness?",
            "should the desk setup be for a lefty or a righty?",
            "remind me which hand I use",
            "do I use my left or right hand?",
        ),
        (),
    ),
    Topic(
        "nationality",
        Category.IDENTITY,
        "nationality",
        "nationality",
        (
            "Portuguese",
            "Canadian",
            "Kenyan",
            "Turkish",
            "Mexican",
            "Indian",
            "Polish",
            "Japanese",
            "Irish",
            "Brazilian",
            "Australian",
            "Nigerian",
            "Greek",
            "Vietnamese",
        ),
        ("I'm {v}", "I hold a {v} passport", "I'm {v} by citizenship"),
        (
            "What's my nationality?",
            "which passport do I hold?",
            "where am I a citizen?",
            "what citizenship do I have?",
            "for the visa form, what's my nationality?",
            "remind me of my nationality",
        ),
        (),
    ),
    Topic(
        "condition",
        Category.HEALTH,
        "condition",
        "condition",
        ("asthma", "type 1 diabetes", "migraines", "celiac disease", "hypothyroidism", "eczema"),
        ("I have {v}", "I've lived with {v} since I was a kid", "I manage {v} every day"),
        (
            "What chronic condition do I have?",
            "what health condition should you remember?",
            "do I have any long-term illness?",
            "what do I manage health-wise?",
            "remind me of my chronic condition",
            "what medical condition do I live with?",
        ),
        ("{v} affects millions of people",),
    ),
    Topic(
        "siblings",
        Category.RELATIONAL,
        "siblings",
        "siblings",
        (
            "the oldest of three",
            "an only child",
            "the youngest of four",
            "a twin",
            "the middle of five kids",
        ),
        ("I'm {v}", "I grew up as {v}", "I was {v}"),
        (
            "Do I have siblings?",
            "how many siblings do I have?",
            "what's my family like, siblings-wise?",
            "am I an only child?",
            "what's my birth order?",
            "remind me about my siblings",
        ),
        (),
    ),
)


@dataclass(frozen=True, slots=True)
class EventKind:
    """A kind of dated event (AV2). ``instance`` kinds get one slot per instance."""

    key: str
    category: Category
    noun: str
    what: tuple[str, ...]
    instance: bool
    questions: tuple[str, ...]


#: Slot attributes of the event kinds that share one slot (a new booking replaces the old).
SHARED_EVENT_SLOTS: Final = {
    "dentist": "appointment:dentist",
    "doctor": "appointment:doctor",
    "vet": "appointment:vet",
    "taxes": "deadline:taxes",
    "inspection": "inspection",
    "school": "meeting:parent_teacher",
}

EVENT_QUESTIONS: Final = (
    "When is my next {noun}?",
    "do I have a {noun} coming up?",
    "what's the date of my upcoming {noun}?",
    "is there a {noun} on my schedule?",
    "remind me when my {noun} is",
    "{noun}: when is the next one?",
    "anything {noun}-related I should prepare for soon?",
    "what {noun} do I have ahead of me?",
)

EVENT_KINDS: Final = (
    EventKind(
        "flight",
        Category.LOGISTICAL,
        "flight",
        ("my flight to {city}", "the {city} flight", "the flight out to {city}"),
        True,
        EVENT_QUESTIONS,
    ),
    EventKind(
        "train",
        Category.LOGISTICAL,
        "train trip",
        ("the train to {city}", "my train ride to {city}", "the overnight train to {city}"),
        True,
        EVENT_QUESTIONS,
    ),
    EventKind(
        "hotel",
        Category.LOGISTICAL,
        "hotel stay",
        (
            "check-in at the hotel in {city}",
            "my hotel check-in in {city}",
            "the hotel stay in {city}",
        ),
        True,
        EVENT_QUESTIONS,
    ),
    EventKind(
        "conference",
        Category.OBLIGATIONS,
        "conference",
        ("the conference in {city}", "my talk at the {city} conference", "the {city} summit"),
        True,
        EVENT_QUESTIONS,
    ),
    EventKind(
        "visit",
        Category.LOGISTICAL,
        "family visit",
        (
            "the visit to my parents in {city}",
            "going up to see my aunt in {city}",
            "the weekend with my cousins in {city}",
        ),
        True,
        EVENT_QUESTIONS,
    ),
    EventKind(
        "dentist",
        Category.OBLIGATIONS,
        "dentist appointment",
        ("a dentist appointment", "the dentist", "my dental cleaning"),
        False,
        EVENT_QUESTIONS,
    ),
    EventKind(
        "doctor",
        Category.OBLIGATIONS,
        "doctor's appointment",
        ("a doctor's appointment", "my checkup with the GP", "the doctor"),
        False,
        EVENT_QUESTIONS,
    ),
    EventKind(
        "vet",
        Category.OBLIGATIONS,
        "vet appointment",
        ("the vet appointment", "the pet's checkup at the vet", "a vet visit"),
        False,
        EVENT_QUESTIONS,
    ),
    EventKind(
        "taxes",
        Category.OBLIGATIONS,
        "tax deadline",
        ("the tax filing deadline", "my taxes due", "the deadline for my tax return"),
        False,
        EVENT_QUESTIONS,
    ),
    EventKind(
        "inspection",
        Category.OBLIGATIONS,
        "car inspection",
        ("the car inspection", "my car's inspection at the garage", "the vehicle inspection"),
        False,
        EVENT_QUESTIONS,
    ),
    EventKind(
        "school",
        Category.OBLIGATIONS,
        "parent-teacher meeting",
        (
            "the parent-teacher meeting",
            "the school meeting about my kid",
            "a parent-teacher conference",
        ),
        False,
        EVENT_QUESTIONS,
    ),
)


@dataclass(frozen=True, slots=True)
class NumericTopic:
    """A fact whose value is a specific number (AV8).

    ``unit`` is how the amount is drawn: ``money``, ``count`` or ``raw``. ``dated`` topics
    describe a past, dated expense of a guarded category (numbers exempt them from expiry).
    """

    name: str
    category: Category
    attribute: str
    low: int
    high: int
    unit: str
    clauses: tuple[str, ...]
    questions: tuple[str, ...]
    versions: bool = False
    dated: bool = False


NUMERIC_TOPICS: Final = (
    NumericTopic(
        "rent",
        Category.FINANCIAL,
        "rent",
        700,
        2400,
        "money",
        (
            "my rent is {amount} a month",
            "I pay {amount} in rent monthly",
            "rent is {amount} per month now",
        ),
        (
            "How much is my rent?",
            "what do I pay in rent each month?",
            "what's my monthly rent these days?",
            "how much does my apartment cost me?",
            "remind me of my rent amount",
            "what's the rent now?",
        ),
        versions=True,
    ),
    NumericTopic(
        "salary",
        Category.FINANCIAL,
        "salary",
        38_000,
        140_000,
        "money",
        ("I make {amount} a year", "my salary is {amount}", "I earn about {amount} annually"),
        (
            "What's my salary?",
            "how much do I earn per year?",
            "what's my annual income?",
            "how much do I make now?",
            "remind me what I get paid",
            "what's my pay these days?",
        ),
        versions=True,
    ),
    NumericTopic(
        "savings",
        Category.FINANCIAL,
        "savings_goal",
        3_000,
        60_000,
        "money",
        (
            "I'm saving up {amount} for a down payment",
            "my savings goal is {amount}",
            "trying to put away {amount} by next year",
        ),
        (
            "How much am I trying to save?",
            "what's my savings goal?",
            "what's the target for my down payment fund?",
            "how much do I want saved?",
            "remind me of my savings target",
            "what amount am I saving toward?",
        ),
        versions=True,
    ),
    NumericTopic(
        "groceries",
        Category.FINANCIAL,
        "budget:groceries",
        150,
        900,
        "money",
        (
            "I budget {amount} a month for groceries",
            "groceries get {amount} a month",
            "my food budget is {amount} monthly",
        ),
        (
            "What's my grocery budget?",
            "how much do I spend on groceries monthly?",
            "what's my monthly food budget?",
            "how much can I spend on groceries?",
            "remind me of my grocery budget",
            "what's the grocery budget now?",
        ),
        versions=True,
    ),
    NumericTopic(
        "fish",
        Category.HOBBIES,
        "fishing_log",
        3,
        14,
        "count",
        (
            "caught {amount} bass at the lake on Saturday",
            "landed {amount} trout this weekend",
            "{amount} fish on the last trip, personal best",
        ),
        (
            "How many fish did I catch on my best trip?",
            "what was my fishing haul?",
            "how many fish did I land?",
            "what's my fishing record?",
            "remind me how many fish I caught",
            "how big was my last catch, in number of fish?",
        ),
    ),
    NumericTopic(
        "race",
        Category.HOBBIES,
        "race_time",
        95,
        140,
        "minutes",
        (
            "ran the half marathon in {amount}",
            "my half marathon time was {amount}",
            "finished the half in {amount}",
        ),
        (
            "What was my half marathon time?",
            "how fast did I run the half?",
            "what's my half marathon result?",
            "how long did the half marathon take me?",
            "remind me of my race time",
            "what time did I finish the half in?",
        ),
    ),
    NumericTopic(
        "repair",
        Category.LOGISTICAL,
        "car_repair",
        240,
        2600,
        "money",
        (
            "the car repair {when} cost me {amount}",
            "paid {amount} for the car repair {when}",
            "the garage charged {amount} {when} for the brakes",
        ),
        (
            "How much did the car repair cost?",
            "what did I pay the garage?",
            "what was the bill for fixing the car?",
            "how expensive was the brake job?",
            "remind me what the car repair came to",
            "what did the mechanic charge me?",
        ),
        dated=True,
    ),
    NumericTopic(
        "vet_bill",
        Category.OBLIGATIONS,
        "vet_bill",
        80,
        1400,
        "money",
        (
            "the vet visit {when} was {amount}",
            "paid {amount} at the vet {when}",
            "vet bill {when}: {amount}",
        ),
        (
            "How much was the vet bill?",
            "what did the vet visit cost?",
            "what did I pay at the vet?",
            "how expensive was the vet?",
            "remind me of the vet bill amount",
            "what did the vet charge?",
        ),
        dated=True,
    ),
    NumericTopic(
        "blood_pressure",
        Category.HEALTH,
        "blood_pressure",
        110,
        145,
        "bp",
        (
            "my blood pressure was {amount} at the last check",
            "BP reading: {amount}",
            "doc measured my blood pressure at {amount}",
        ),
        (
            "What was my blood pressure reading?",
            "what's my latest BP?",
            "how high was my blood pressure?",
            "what did the doctor measure for my BP?",
            "remind me of my blood pressure",
            "what's my blood pressure number?",
        ),
    ),
)
