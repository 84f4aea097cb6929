"""Slot-key normalization (paper App. F): ``subject|attribute`` or ``subject|attribute:instance``.

Facts with the same key compete for the same slot, so keys must be *stable across wording*
("rent is $950/mo" and "landlord bumped the rent to 1100" -> ``user|rent``) and *specific
enough* not to merge independent facts (two appointments -> ``user|appointment:dentist`` and
``user|appointment:vet``). Over-broad keys cause wrongful supersession, the failure the paper
measures in App. AE, so a fact with no recognizable attribute gets the category's generic
attribute with an instance drawn from the fact's head words rather than a shared bucket.
"""

from __future__ import annotations

import re

from fr_graph.core.ontology import Category
from fr_graph.core.text import words

#: (pattern, attribute). ``{1}`` in the attribute is replaced by capture group 1, snake-cased.
SlotRule = tuple[str, str]

SLOT_RULES: dict[Category, list[SlotRule]] = {
    Category.IDENTITY: [
        (r"\b(?:last|first|maiden|middle|legal|sur|family|nick)[ -]?name\b|\bmy name\b"
         r"|\bname is legally\b|\bcall me\b", "name"),
        (r"\bpromot(?:ed|ion)\b|\bjob title\b", "job_title"),
        (r"\b(?:work|works|working|employed)\s+(?:at|for)\b|\bjoin(?:ed|ing)\b|\bjob offer\b"
         r"|\bemployer\b", "employer"),
        (r"\b(?:i am|i'm)\s+\d{1,3}\b|\b\d{1,3}\s*(?:years?|yrs?)\s*old\b", "age"),
        (r"\bcitizen\w*\b|\bnationality\b", "nationality"),
        (r"\boriginally from\b|\bgrew up in\b|\bhometown\b|\b(?:i am|i'm)\s+from\b", "hometown"),
        (r"\b(?:live|living|lives|based|settled|reside\w*)\s+(?:in|near)\b|\bmoved to\b"
         r"|\brelocat\w+\b|\bhome now\b|\bhere since\b", "current_city"),
        (r"\bpronouns?\b", "pronouns"),
        (r"\b(?:nonbinary|non-binary|transgender|my gender|identif(?:y|ies) as)\b", "gender"),
        (r"\b\w+-(?:american|canadian|british|australian)\b|\binuvialuit\b|\binuit\b"
         r"|\bindigenous\b|\bethnic\w*\b", "ethnicity"),
        (r"\b(?:ordained|episcopal\w*|catholic|protestant|baptist|methodist|ucc|denomination"
         r"|religio\w*|spiritual|faith|atheist|agnostic|church|discernment)\b", "religion"),
        (r"\b(?:introvert\w*|extrovert\w*|personality|perfectionist)\b", "personality"),
        (r"\b(?:master'?s|bachelor'?s|phd|doctorate|degree|diploma|graduated)\b", "education"),
        (r"\bspeak\b|\bbilingual\b|\bfluent\b", "languages"),
        (r"\bhanded\b", "handedness"),
        (r".", "occupation"),
    ],
    Category.RELATIONAL: [
        (r"\bapprentice\w*\b", "apprentice"),
        (r"\b(?:boyfriend|girlfriend|husband|wife|spouse|partner|fianc[eé]e?|dating"
         r"|seeing someone|together|married|marry|marrying|engaged|propos\w+|broke up"
         r"|break up|split up|wedding)\b", "partner"),
        (r"\b(?:kids|children|twins|custody)\b", "children"),
        (r"\bparents\b", "parents"),
        (r"\b(?:friend|bff|best friend|buddy|bestie)\s+(?:since\s+\S+\s+\S+\s*=?\s*)?([a-z]+)?",
         "friend:{1}"),
        (r"\b(?:roommate|flatmate|housemate)\s+([a-z]+)?", "roommate:{1}"),
        (r"\b(?:coworker|co-worker|colleague)\s+([a-z]+)?", "friend:{1}"),
        (r"\b(?:dog|puppy|cat|kitten|pet|greyhound|beagle|retriever|terrier|rabbit|parrot"
         r"|hamster)\b(?:.*?\b(?:named|called|name is)\s+([a-z]+))?", "pet:{1}"),
        (r"\b(sister|brother|sibling|son|daughter|mom|mum|mother|dad|father|grandma|granny"
         r"|grandmother|grandpa|grandfather|aunt|uncle|cousin|niece|nephew)\b", "{1}"),
    ],
    Category.INTELLECTUAL: [
        (r"\b(?:learning|studying|teaching myself)\s+(?:the\s+|about the\s+)?"
         r"(?:\w+\s+)?(japanese|mandarin|chinese|spanish|french|german|italian|korean|arabic"
         r"|latin|greek|russian|portuguese|hebrew|turkish|hindi)\b", "learning:{1}"),
        (r"\b(linear algebra|calculus|statistics)\b", "learning:{1}"),
        (r"\b(stoicism|byzantine history|quantum computing|mycology|cartography|philosophy"
         r" of mind|philosophy|housing policy|astronomy|etymology|art history|marine biology"
         r"|astrophysics|crypto|urban planning|french revolution|bird migration|economics"
         r"|game theory|black holes|linguistics|economic history|ottoman architecture"
         r"|neuroscience|history|physics|llms|ethics)\b", "interest:{1}"),
        (r"\b(?:about|into|on|in|by|with)\s+(?:the\s+)?(\w+(?:\s+\w+)?)", "interest:{1}"),
    ],
    Category.HEALTH: [
        (r"\ballergic to\s+(\w+)|\b(\w+)\s+allerg", "allergy:{1}"),
        (r"\b(sertraline|levothyroxine|antidepressant|insulin|metformin|adderall|ssri)",
         "medication:{1}"),
        (r"\b(wisdom teeth|knee replacement|hip replacement|appendectomy)\b", "procedure:{1}"),
        (r"\b(acl|knee|back|ankle|wrist|hip|shoulder|elbow|neck)\b", "injury:{1}"),
        (r"\bblood pressure\b", "blood_pressure"),
        (r"\b(?:sober|sobriety|relapse)\b", "sobriety"),
        (r"\bpregnan\w*\b", "pregnancy"),
        (r"\b(?:anxiety|depress\w*|burnout|panic attacks?|ptsd|mental health)\b", "mental_health"),
        (r"\b(migraine|diabetes|flu|covid|asthma|adhd|celiac|breast cancer|cancer|pneumonia"
         r"|lactose intoleran|chronic fatigue|sore throat|arthritis|insomnia)", "condition:{1}"),
        (r"\bsleep\w*\b", "sleep"),
        (r"\b(?:weight|pounds|lbs)\b", "weight"),
    ],
    Category.PROJECTS: [
        (r"\b(?:puppies|puppy|dog|kitten|pet)s?\b", "pet_plan"),
        (r"\bmov(?:e|ing)\s+to\b", "move_plan"),
        (r"\b(thesis|dissertation|novel|book|exchange|camp|etsy shop|podcast|treehouse"
         r"|grant application|youtube channel|half marathon|marathon|kickstarter|bakery"
         r"|law school|exhibition|paper|app rewrite|app|community garden|backend migration"
         r"|job search|kitchen remodel|kitchen renovation|motorcycle restoration)\b",
         "project:{1}"),
        (r"\bjob hunt\w*\b", "project:job_search"),
        (r"\brenovat\w*\b", "project:renovation"),
    ],
    Category.HOBBIES: [
        (r"\b(?:fishing|fished|bass|trout|salmon|pike)\b", "hobby:fishing"),
        (r"\b(?:hunting|hunted|buck|deer)\b", "hobby:hunting"),
        (r"\b(?:gardening|garden|perennials)\b", "hobby:gardening"),
        (r"\b(?:watercolou?r|painting)\b", "hobby:watercolor"),
        (r"\b(?:climb\w*|boulder\w*)\b", "hobby:climbing"),
        (r"\b(?:gaming|video games?|elden ring)\b", "hobby:gaming"),
        (r"\bknit\w*\b", "hobby:knitting"),
        (r"\bband\b", "hobby:music"),
        (r"\bbirdwatch\w*|\bbirding\b", "hobby:birdwatching"),
        (r"\b(?:sourdough|baking)\b", "hobby:baking"),
        (r"\bescape rooms?\b", "hobby:escape_rooms"),
        (r"\bcollect\w*\b", "hobby:collecting"),
        (r"\b(?:salsa|dancing|tango)\b", "hobby:dancing"),
        (r"\b(?:d&d|dungeons)\b", "hobby:dnd"),
        (r"\btrail\w*\b|\brunning\b", "hobby:running"),
        (r"\bwood carving\b|\bcarving\b", "hobby:wood_carving"),
        (r"\b(?:telescope|astronomy|stargazing)\b", "hobby:astronomy"),
        (r"\bskat\w+\b", "hobby:skating"),
        (r"\bsurf\w*\b", "hobby:surfing"),
        (r"\b(volleyball|soccer|basketball|tennis|golf|hockey|pickleball|guitar|piano|drums"
         r"|pottery|camping|hiking|kayaking|chess|photography|cycling|swimming|skiing"
         r"|snowboarding|sailing|yoga)\b", "hobby:{1}"),
    ],
    Category.PREFERENCES: [
        (r"\b(?:vegetarian|vegan|pescatarian|keto|paleo|plant[- ]based|eating\s+(?:fish|meat)"
         r"|diet)\b", "diet"),
        (r"\b(?:answer|reply|respond|write|speak)\w*\b.*\bin\s+(?:\w+\s+)?(?:english|spanish"
         r"|french|german|portuguese|italian|turkish|japanese)\b", "response_language"),
        (r"\b(?:short answers|concise|no fluff|bullet points|answers?)\b", "response_style"),
        (r"\b(?:oat milk|almond milk|milk|bonsoy|minor figures)\b", "milk_preference"),
        (r"\bcoffee\b", "coffee"),
        (r"\btea\b", "tea"),
        (r"\b(?:hate|dislike|can't stand)\s+(\w+)", "food_dislike:{1}"),
        (r"\b(?:seat|aisle)\b", "seat_preference"),
        (r"\b(?:soda|sparkling|drink\w*)\b", "drink_preference"),
        (r"\b(?:pizza|sushi|food|pad see ew|thai|ramen|tacos)\b", "food_preference"),
        (r"\b(?:spotify|apple music)\b", "music_service"),
        (r"\b(?:jazz|rock|music)\b", "music_preference"),
        (r"\b(?:iphone|android)\b", "phone_preference"),
        (r"\b(?:dark mode|light mode)\b", "ui_theme"),
        (r"\b(?:texting|calls)\b", "communication_preference"),
        (r"\bmovies?\b|\bfilms?\b", "movie_preference"),
        (r"\b(?:kindle|paper books)\b", "reading_format"),
        (r"\bcolou?r\b", "color_preference"),
        (r"\b(?:cat|dog) person\b", "pet_preference"),
        (r"\b(?:morning person|wake up|up at)\b", "wake_time"),
        (r"\b(?:bed|sleep in)\b", "sleep_schedule"),
        (r"\b(?:eat|eating)\b", "eating_habit"),
        (r"\b(?:buy|clothes|secondhand)\b", "shopping_habit"),
    ],
    Category.FINANCIAL: [
        (r"\brent\b", "rent"),
        (r"\bmortgage|\brefinanc\w*", "mortgage"),
        (r"\b(?:salary|make about|i make|raise|income|paycheck)\b", "salary"),
        (r"\bsaving up\b|\bdown payment\b", "savings_goal"),
        (r"\bsavings\b", "savings"),
        (r"\b(student loans?|credit card|loan)\b", "debt:{1}"),
        (r"\bowe\s+(?:my\s+)?(\w+)", "debt:{1}"),
        (r"\b(?:invest\w*|index funds?|stocks?)\b", "investing"),
        (r"\bbudget\w*\s+(?:\$?\d+\s+)?(?:a month\s+)?(?:for\s+)?(\w+)?", "budget:{1}"),
        (r"\b(?:car|civic|subaru|truck|boat|condo|house|home|place|farmland|property)\b",
         "{0}"),
        (r"\b(?:per|a)\s+(service|haircut|head)\b", "price:{1}"),
    ],
    Category.OBLIGATIONS: [
        (r"\b(dentist|vet|doctor|oncology|physical therapy|couples therapy|cataract surgery"
         r"|immigration office)\b", "appointment:{1}"),
        (r"\bjury duty\b", "jury_duty"),
        (r"\b(taxes|passport|visa paperwork|grant report|quarterly report|lease renewal"
         r"|mortgage application|compliance training)\b", "deadline:{1}"),
        (r"\b(guild|parent-teacher|annual review)\b", "meeting:{1}"),
        (r"\b(driving test|exam)\b", "exam:{1}"),
        (r"\b(inspection|hearing|court)\b", "{1}"),
        (r"\bappointment\b", "appointment"),
        (r"\bdue\b|\bdeadline\b", "deadline"),
        (r"\bmeeting\b", "meeting"),
    ],
    Category.LOGISTICAL: [
        (r"\b(?:flight|gate|landing|airport|fly\w*)\b", "flight"),
        (r"\btrain\b", "train"),
        (r"\b(?:hotel|check-in|airbnb|hostel)\b", "hotel"),
        (r"\bstaying (?:at|with|in)\b", "lodging"),
        (r"\b(?:trip|road trip|driving up|travel\w*)\b", "travel"),
        (r"\b(?:package|delivery)\b", "delivery"),
        (r"\b(?:wifi|wi-fi|internet)\b", "internet"),
        (r"\b(?:working from home|working in|work from)\b", "work_location"),
        (r"\b(?:car's in the shop|bus|commute)\b", "transport"),
        (r"\b(?:uber|lyft|taxi|cab)\b", "ride"),
        (r"\bparking\b", "parking"),
        (r"\brental car\b", "rental_car"),
        (r"\bferry\b", "ferry"),
        (r"\b(?:in|at|back home|home)\b", "location"),
    ],
}

#: Attributes recognizable from the wording alone, whatever category the fact scored: tried
#: before the category's rules so that restatements of one slot that score different
#: categories ("home is Seoul for me" / "relocated from Seoul to Denver") share a key.
ANCHOR_SLOT_RULES: list[SlotRule] = [
    (r"\b(?:work(?:s|ing)?|employed|(?:new )?job(?: is)?)\s+(?:at|for|with)\b|\bnew job\b"
     r"|\bfirst (?:week|day|month) at\b|\bemployer\b|\bjoin(?:ed|ing) (?!the\b|a\b|my\b)",
     "employer"),
    (r"\bmy (?:manager|boss|supervisor|line manager|team lead)\b|\breport(?:s|ing)? to\b",
     "manager"),
    (r"\bmy (sister|brother|mom|mum|mother|dad|father|parents|grandma|grandmother"
     r"|grandpa|grandfather|cousin|aunt|uncle|son|daughter)\s+(?:now\s+|just\s+)?(?:lives"
     r"|is living|is based|moved|relocated)\b", "home:{1}"),
    (r"\bhome is\b|\bis (?:my )?home\b|\b(?:i|we) (?:live|am living|'m living|are living"
     r"|'re living)\s+(?:in|near)\b|\b(?:i'm|i am|we're|we are) (?:now )?based in\b"
     r"|\b(?:i|we) (?:moved|relocated) (?:from \w+(?: \w+)? )?to\b|\brelocat\w+ (?:to|from)\b",
     "current_city"),
    (r"\bcommut\w+\b|\b(?:to|get to|ride to|go to) work (?:on|by|in)\b|\bto work\b.{0,20}"
     r"\b(?:bike|scooter|e-scooter|bus|train|tram|car|metro|subway|walk)\b"
     r"|\b(?:ride|take|drive) (?:a |an |the |my )?[\w-]+ to work\b", "commute"),
    (r"\bwork(?:ing)? (?:from home|remotely|remote|hybrid|from (?:a|the) (?:co-?working|office))"
     r"|\bco-?working\b|\bhybrid\b|\bin the office\b", "work_location"),
    (r"\bmy (?:phone|smartphone|mobile)\b|\b(?:i'm|i am) on (?:a|an) (?:iphone|pixel|galaxy"
     r"|android|samsung|nokia|fairphone)", "phone"),
    (r"\b(?:i|we) drive (?:a|an)\b|\bmy car\b|\bcar is (?:a|an)\b", "car"),
    (r"\bnote-taking\b|\bnotes? app\b|\b(?:take|keep|write) (?:all )?(?:my )?notes\b"
     r"|\bnotes (?:in|on)\b", "notes_app"),
    (r"\bmusic (?:app|service|streaming)\b|\b(?:use|using|on|to|for|ditched|dropped|cancel\w*)\s+"
     r"(?:spotify|apple music|youtube music|tidal|deezer|pandora|soundcloud|bandcamp)\b",
     "music_service"),
    (r"\b(?:answers?|replies|responses?)\b.{0,40}\b(?:work(?:s)? best|style|format|prefer)\b"
     r"|\b(?:answer|reply|response) style\b", "response_style"),
    (r"\bworkouts?\b|\bgym time\b|\b(?:training|exercise|workout) (?:sessions?|time|slot)\b",
     "workout_time"),
]

#: Family words folded to one role name.
ROLE_ALIASES = {
    "mom": "mother", "mum": "mother", "dad": "father", "grandma": "grandmother",
    "granny": "grandmother", "grandpa": "grandfather", "kids": "children",
    "twins": "children", "sibling": "sibling",
}

#: Words that are never a person's name when they follow a role word.
NOT_A_NAME = words(
    """a an the and or but i me my we us our you he she they it is was are were has have had
    just also still now who that which when with from for to in on at of by as be been being
    do does did not no so very really got get gets just lives lived moved moving passed turns
    turned started opened said says told is's moving went goes going came comes will would can
    could should might may must since after before about over again too then there here this
    these those what where how why if than like named called up out off back had were"""
)

COMPILED_ANCHOR_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(pattern), attribute) for pattern, attribute in ANCHOR_SLOT_RULES
]

COMPILED_SLOT_RULES: dict[Category, list[tuple[re.Pattern[str], str]]] = {
    category: [(re.compile(pattern), attribute) for pattern, attribute in rules]
    for category, rules in SLOT_RULES.items()
}
