"""Lexicons and patterns for the offline rules classifier (data only, no logic).

Every pattern runs against *normalized* text (see ``rules.normalize``): lower case, curly quotes
straightened, chat shorthand expanded (``im`` -> ``i'm``, ``rn`` -> ``right now``) and third-person
``User``/``the user`` rewritten to first person, so one table serves chat messages and
extracted facts alike. Weights are additive evidence; a category's score is the sum of the
weights of its patterns that match (each pattern counts once).

Category boundaries follow Table 1 of the paper and the labeling guide in ``LABELING.md``.
"""

from __future__ import annotations

from fr_graph.core.ontology import Category

Pattern = tuple[str, float]


_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_NUMWORD = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy"
    r"|eighty|ninety|hundred|thousand|million|billion|dozen)"
)
_OCCUPATION = (
    r"(?:nurse|engineer|teacher|barber|electrician|chaplain|designer|developer|programmer"
    r"|lawyer|attorney|physician|accountant|student|professor|lecturer|researcher|scientist"
    r"|chef|cook|waiter|waitress|barista|firefighter|plumber|carpenter|pilot|pastor|priest"
    r"|rabbi|imam|minister|writer|journalist|artist|musician|farmer|mechanic|consultant"
    r"|manager|analyst|paramedic|pharmacist|dentist|social worker|veteran|soldier|cop"
    r"|police officer|cashier|librarian|architect|economist|photographer|realtor"
    r"|entrepreneur|founder|ceo|cto|intern|trucker|welder|translator|tutor|midwife"
    r"|surgeon|vet tech|veterinarian|hairdresser|stylist|tailor|baker|butcher|guide"
    r"|dev|swe|sre|data scientist|freelancer|contractor|driver|electrician|principal)"
)
_NATIONALITY = (
    r"(?:american|canadian|british|english|scottish|welsh|irish|turkish|indian|chinese"
    r"|mexican|nigerian|german|french|korean|japanese|filipino|filipina|brazilian|italian"
    r"|polish|spanish|dutch|swedish|norwegian|danish|russian|ukrainian|greek|egyptian"
    r"|moroccan|iranian|persian|kurdish|pakistani|bangladeshi|vietnamese|thai|australian"
    r"|kenyan|ghanaian|ethiopian|colombian|peruvian|chilean|argentinian|cuban|jamaican"
    r"|inuvialuit|inuit|indigenous|metis|black|latina|latino|latinx|hispanic|asian|arab"
    r"|jewish|muslim|christian|catholic|hindu|sikh|buddhist|atheist|agnostic|tamil"
    r"|punjabi|yoruba|igbo|maori|sami)"
)
_LANGUAGE = (
    r"(?:japanese|mandarin|cantonese|chinese|spanish|french|german|italian|korean|arabic"
    r"|latin|ancient greek|greek|russian|portuguese|hebrew|turkish|hindi|urdu|swahili"
    r"|dutch|polish|farsi|vietnamese|tagalog|english|sign language|asl)"
)
_FAMILY = (
    r"(?:mom|mum|mommy|mama|mother|dad|daddy|papa|father|parents?|sister|sis|brother|bro"
    r"|siblings?|sons?|daughters?|kids?|children|child|baby|babies|twins|grandma|granny"
    r"|grandpa|grandmother|grandfather|grandparents?|grandson|granddaughter|grandkids?"
    r"|aunt|auntie|uncle|cousins?|niece|nephew|in-laws?|mother-in-law|father-in-law"
    r"|stepmom|stepdad|stepson|stepdaughter|family)"
)
_PARTNER = (
    r"(?:boyfriend|girlfriend|husband|wife|hubby|wifey|spouse|partner|fianc[eé]e?"
    r"|ex-?wife|ex-?husband|ex-?boyfriend|ex-?girlfriend|ex)"
)
_PET = (
    r"(?:dog|dogs|puppy|puppies|pup|cat|cats|kitten|kittens|kitty|pet|pets|greyhound|beagle"
    r"|retriever|labrador|terrier|poodle|corgi|husky|spaniel|dachshund|chihuahua|bunny"
    r"|rabbit|hamster|parrot|budgie|tortoise|turtle|gecko|horse|pony)"
)

WEEKDAY = _WEEKDAY
MONTH = _MONTH
NUMWORD = _NUMWORD

CATEGORY_PATTERNS: dict[Category, list[Pattern]] = {
    Category.IDENTITY: [
        (r"\b(?:i|i'm|we)\s+(?:\w+\s+)?work(?:s|ing)?\s+in\s+(?:tech|finance|healthcare"
         r"|construction"
         r"|sales|marketing|hr|it|retail|education|hospitality|insurance|government|academia"
         r"|publishing|media|law|banking|logistics|manufacturing|real estate)\b"
         r"|\bmy (?:job|career|profession|occupation) is\b|\bi run (?:a|my own)\b", 1.8),
        (r"\bi\s+(?:just\s+)?turned\s+\d{2}\b|\bin my (?:20|30|40|50|60|70|80)s\b|\bborn in\b"
         r"|\bmy birthday is\b|\b(?:zodiac|star) sign\b|\bi'm a (?:gemini|leo|virgo|libra|scorpio"
         r"|sagittarius|capricorn|aquarius|pisces|aries|taurus|cancer)\b", 2.2),
        (r"\b(?:politic\w*|conservative|liberal|progressive|democrat|republican|libertarian"
         r"|socialist|feminist|expat|first-generation|first gen|native of|veteran)\b", 1.8),
        (r"\b(?:studied|study)\s+\w+(?:\s+\w+)?\s+at\b|\bwent to (?:college|university|uni|school)"
         r"\s+(?:at|in)\b", 1.8),
        (r"\b(?:work|works|working|employed)\s+(?:at|for|with)\s+(?!home\b|the shop\b)", 2.0),
        (r"\bjoin(?:ed|ing)\s+(?!a\b|an\b|the\b|my\b|our\b|us\b|them\b|in\b)[a-z]", 1.6),
        (r"\b(?:my|new|old|day|current|full[- ]time|part[- ]time)\s+job\b|\bjob offer\b", 1.6),
        (r"\b(?:hired|laid off|got fired|promot(?:ed|ion)|retired|retiring|by trade"
         r"|freelanc\w*|self[- ]employed|career|employer|used to (?:teach|work))\b", 2.0),
        (r"\b(?:i am|i'm|i was|became|become|work as|works as|working as|job as)\s+"
         r"(?:a|an|the)?\s*(?:\w+\s+){0,2}" + _OCCUPATION + r"s?\b", 2.5),
        (r"\b(?:navy|army|marines|air force|military|civilian life|enlisted)\b", 1.6),
        (r"\b(?:last|first|maiden|middle|legal|sur|family|nick)[ -]?name\b|\bmy name\b"
         r"|\bname is legally\b|\bcall me\b|\bname change\b", 3.0),
        (r"\b(?:i am|i'm)\s+\d{1,3}\b(?!\s*(?:%|percent|min|mins|minutes|hours?|days?|weeks?"
         r"|months?|k\b|years? (?:into|in)|sober))", 2.5),
        (r"\b\d{1,3}\s*(?:years?|yrs?|y/?o)\s*old\b|\bmy age\b", 1.0),
        (r"\b(?:i am|i'm)\s+(?:originally\s+)?from\b|\boriginally from\b|\bgrew up in\b"
         r"|\bhometown\b|\bborn and raised\b", 2.5),
        (r"\bcitizen(?:ship)?\b|\bnationality\b|\bimmigra(?:nt|ted)\b|\bgreen card\b"
         r"|\bpassport holder\b", 2.5),
        (r"\b\w+-(?:american|canadian|british|australian)\b", 2.5),
        (r"\b(?:i am|i'm|am|i identify as|identifies as)\s+(?:\w+\s+)?" + _NATIONALITY + r"\b",
         2.0),
        (r"(?:^|\b(?:i|we|i'm|we're|i've|we've|am|are|been|still|currently|now)\s+)"
         r"(?:\w+\s+)?(?:live|living|based|settled|reside|residing)\s+(?:in|near|outside)\b",
         2.0),
        (r"(?:^|\b(?:i|we|i've|we've|just|recently|finally|have|had)\s+)(?:\w+\s+)?"
         r"(?:moved|relocated|relocating|moving back)\s+(?:to|from)\b|\bhome now\b"
         r"|\bhere since\b|\bmy city\b|\bwhere i live\b|\bmy hometown\b", 1.4),
        (r"\b(?:ordained|episcopal\w*|catholic|protestant|baptist|methodist|lutheran"
         r"|presbyterian|anglican|ucc|denomination|synagogue|mosque|religio\w*|spiritual"
         r"|faith|converted to|discernment|atheist|agnostic|my church)\b", 2.2),
        (r"\b(?:pronouns?|nonbinary|non-binary|transgender|trans (?:man|woman)|gay|lesbian"
         r"|bisexual|queer|identif(?:y|ies) as|my gender|came out)\b", 2.5),
        (r"\b(?:introvert\w*|extrovert\w*|ambivert|personality|shy person|people person"
         r"|perfectionist|type a|empath|neurodivergent)\b", 2.2),
        (r"\b(?:master'?s|bachelor'?s|phd|ph\.d|doctorate|degree|diploma|graduated|alumn\w*"
         r"|grad student|undergrad|majored|major in|minor in)\b", 1.6),
        (r"\bi speak\b|\bspeaks?\s+(?:fluent|some|a bit of|a little)\b|\bnative speaker\b"
         r"|\bbilingual\b|\btrilingual\b|\bmother tongue\b", 2.2),
        (r"\b(?:left|right)[- ]handed\b|\bi(?:'m| am)\s+\d+\s*(?:cm|ft|foot|feet)\b", 2.5),
    ],
    Category.RELATIONAL: [
        (r"\b(?:moved in together|moving in together|date night|first date|crush on|dating app"
         r"|tinder|hinge|bumble|ghosted|soulmate|my person|godmother|godfather|goddaughter"
         r"|godson|stepkids|foster (?:kid|child|son|daughter)|we're expecting|our baby"
         r"|our kids|our son|our daughter)\b", 2.0),
        (r"\b" + _PARTNER + r"\b", 1.5),
        (r"\b(?:dating|seeing someone|seeing (?:a|this) (?:guy|girl|woman|man)|together for"
         r"|been together|married|marry|marrying|engaged|engagement|propos(?:e|ed|ing)"
         r"|broke up|break up|breakup|split up|divorc\w*|separated|widow\w*|custody"
         r"|anniversary|remarried|honeymoon|my ex\b)\b", 2.2),
        (r"\b(?:(?:me|i) and \w+|we)\s+(?:ended|split|broke up)\b", 2.2),
        (r"\b" + _FAMILY + r"\b", 0.9),
        (r"\b(?:friend|friends|bff|buddy|bestie|roommate|flatmate|housemate"
         r"|coworker|co-worker|colleague|mentor|mentee|boss)\b", 1.0),
        (r"\b(?:best friend|close friend|oldest friend|childhood friend)\b", 1.6),
        (r"\bapprentice\w*\b", 2.0),
        (r"\b" + _PET + r"\b", 1.0),
        (r"\b(?:adopted|rescued|got|have|has|own)\s+(?:a|an|another|our|my|a second|two)?\s*"
         r"(?:\w+\s+)?" + _PET + r"\b|\brescue\s+" + _PET + r"\b", 1.6),
        (r"\b(?:named|called)\s+[a-z]+\b|\b(?:her|his|their) name is\b", 0.6),
        (r"\b(?:passed away|died|funeral|was born|gave birth|had a baby|expecting"
         r"|pregnant with our)\b", 1.6),
        (r"\b(?:haven't spoken|not speaking|reconnected|estranged|gotten (?:really\s+)?close"
         r"|grown apart|hang out|hanging out|falling out|close with|get along)\b", 2.0),
        (r"\b(?:lives|living|moved in|moving in|moved out|moving out|stays)\s+with\s+(?:us|me)\b"
         r"|\bmoving out\b", 1.6),
        (r"\bhave\s+(?:\w+\s+)?(?:kids|children|sons|daughters|grandkids)\b|\bturns\s+\d+", 1.2),
    ],
    Category.INTELLECTUAL: [
        (r"\b(?:space|ancient rome|roman empire|world war|ww2|wwii|civil war|egypt\w*"
         r"|mythology|behavioral economics|climate science|ecology|botany|geology|paleontology"
         r"|dinosaurs|robotics|ai safety|cryptography|number theory|music theory|film theory"
         r"|semiotics|epistemology|metaphysics|logic|rhetoric|sociolinguistics|demographics"
         r"|ted talks|trivia|ancient history|medieval|renaissance|philology)\b", 1.2),
        (r"\b(?:history|science|philosophy|space|math|physics|book|language|word)\s+(?:buff"
         r"|nerd|geek)"
         r"|\b(?:buff|nerd|geek)\b|\blearning to (?:code|program)\b", 1.6),
        (r"\b(?:interested in|interest in|interested for|fascinat\w*|curious\w*|curiosity"
         r"|intrigued)\b", 2.2),
        (r"\b(?:read|reading|learn|learning|studying|study|researching)\s+(?:a lot\s+|up\s+)?"
         r"(?:about|up on|into)\b|\bread everything\b"
         r"|\b(?:read|reading|books?)\s+on\s+(?!(?:(?:my|a|the|an)\s+)?(?:kindle|phone|ipad"
         r"|tablet|laptop|train|bus|plane|beach))", 2.0),
        (r"\brabbit[- ]?hol\w*|\bnerd(?:ing)? out\b|\bnerd topic\b|\bgeek(?:ing)? out\b"
         r"|\bdeep dive\b", 2.5),
        (r"\b(?:history|philosophy|physics|astrophysics|economics|economists?|linguistics"
         r"|etymology|mycology|biology|neuroscience|psychology|sociology|anthropology"
         r"|mathematics|math|algebra|calculus|statistics|cartography|stoicism|ethics"
         r"|theology|quantum|game theory|urban planning|policy|geopolitics|archaeology"
         r"|literature|poetry|art history|black holes|evolution|genetics|cosmology"
         r"|llms?|machine learning|philosophers?|marcus aurelius|kant|nietzsche|plato"
         r"|sapiens|nonfiction|non-fiction|macro|microeconomics|the brain|consciousness"
         r"|philosophy of mind|architecture|fungi|the universe)\b", 1.2),
        (r"\b(?:podcasts?|lectures?|papers|books?\s+(?:on|about)|documentar\w+|online course"
         r"|course on|class in|night class|substack|essays|mooc|coursera|edx|duolingo"
         r"|textbooks?|wikipedia)\b", 1.2),
        (r"\b(?:learning|teaching myself|self[- ]taught|studying|learn)\s+(?!about|to\b)"
         r"(?:the\s+)?(?:\w+\s+)?" + _LANGUAGE + r"\b", 2.0),
        (r"\b(?:teaching myself|self[- ]taught|out of curiosity|for myself|for fun)\b", 1.0),
        (r"\b(?:wanna|want to|trying to|try to)\s+(?:understand|learn)\b|\bunderstand how\b",
         1.6),
        (r"\bstreak\b|\bon the (?:reading )?list\b|\bmy reading\b"
         r"|\breading\s+[a-z]+\s+(?:right now|rn)\b", 0.8),
    ],
    Category.HEALTH: [
        (r"\b(?:blood sugar|a1c|glucose|pcos|endometriosis|menopause|ivf|fertility|vitamin d"
         r"|b12|iron deficien\w*|deficien\w*|antibiotics|a cold|head cold|stomach bug"
         r"|food poisoning"
         r"|strep|bronchitis|sinus infection|uti|shingles|mono|sleep apnea|cpap|long covid"
         r"|quit smoking|stopped smoking|nicotine|vaping|counsel(?:l)?or|counsel(?:l)?ing|glasses"
         r"|hearing aids?|tinnitus|eczema|psoriasis|acne|hernia|kidney stones?|gallbladder"
         r"|vertigo|anemi\w*|hypertension|cavity|root canal|broken (?:arm|leg|wrist|ankle|foot))\b",
         2.2),
        (r"\b(?:migraines?|headaches?|diabet\w*|asthma|cancer|chemo\w*|tumou?r|adhd|autis\w*"
         r"|anxiety|depress(?:ion|ed)|burnout|bipolar|ptsd|ocd|insomnia|panic attacks?|flu"
         r"|covid|fever|sore throat|cough\w*|infection|pneumonia|allerg\w*|intoleran\w*"
         r"|celiac|coeliac|arthritis|fatigue|concussion|diagnos\w*|symptoms?|blood pressure"
         r"|cholesterol|thyroid|levothyroxine|insulin|inhaler|antidepressants?|sertraline"
         r"|ssri|psychiatrist|mental health|sober|sobriety|relapse|rehab|pregnan\w*"
         r"|miscarriage|wisdom teeth|physio\w*|hospitali[sz]ed|hospital|surgery|operation"
         r"|knee replacement|hip replacement|sprain\w*|fractur\w*|torn|tore my|acl|mri"
         r"|x-ray|eating disorder|epilep\w*|seizures?|stroke|heart attack|medication|meds"
         r"|prescri\w*|dosage|chronic|illness|vaccine|booster|lactose|gluten|ibs|crohn\w*)\b",
         2.5),
        (r"\b\d+\s*(?:mg|mcg|ml|milligrams?)\b", 2.0),
        (r"\b(?:pain|ache|aches|aching|sick|ill|injur\w*|swollen|swelling|nausea|vomit\w*"
         r"|dizzy|exhausted|weight|pounds|lbs|bmi|knee|knees|back|hip|ankle|wrist|joint"
         r"|sleep|sleeping|therapy|therapist|doctor|doc|healed|healing|recover\w*|bruised"
         r"|stitches|cast|crutches|sore)\b", 1.0),
        (r"\bdoc(?:tor)?\s+(?:said|says|thinks|told|upped|prescribed|put me|wants me)\b"
         r"|\bfeeling\s+(?:better|worse|sick|awful|rough|terrible)\b|\bacting up\b"
         r"|\bbroke my\s+(?:arm|leg|wrist|ankle|foot|hand|nose|toe|finger|rib)\b"
         r"|\bhours? (?:of sleep|a night)\b|\b(?:lost|gained)\s+\d+\s*(?:pounds|lbs|kg|kilos)\b",
         2.0),
    ],
    Category.PROJECTS: [
        (r"\b(?:side hustle|screenplay|script|album|mixtape|comic|zine|game jam|hackathon"
         r"|fundraiser|campaign|research project|pilot study|mural|documentary i'm|short film"
         r"|writing (?:a|my) (?:book|novel|screenplay|memoir|paper|grant|thesis|album))\b", 1.6),
        (r"\b(?:thesis|dissertation|manuscript|novel|book proposal|my book|a book|draft"
         r"|grant|kickstarter|startup|side project|project|prototype|mvp|launch\w*|etsy"
         r"|proposal|exhibition|portfolio|paper accepted|camera-ready|submission)\b", 2.0),
        (r"\b(?:working on|writing (?:my|a|the|our)|building (?:a|an|my|our|the)"
         r"|renovat\w*|remodel\w*|restor(?:e|ing|ation)|rebuild\w*|migrat(?:e|ing|ion)"
         r"|rewrite|refactor\w*|preparing|leading it|leading the)\b", 2.0),
        (r"\b(?:apply(?:ing)?|applied)\s+(?:for|to)\b|\bapplications?\b|\bjob hunt\w*"
         r"|\bjob search\w*|\binterviewing\b|\blaw school\b|\bgrad school\b", 2.0),
        (r"\b(?:training for|half marathon|marathon|triathlon|ironman)\b", 1.6),
        (r"\b(?:app|shop|business|podcast|youtube channel|channel|newsletter|bakery|store"
         r"|website|treehouse|camp|chapter \d+|v\d+)\b", 1.0),
        (r"\b(?:start(?:ed|ing)?|launch(?:ed|ing)?|found(?:ed|ing)?|co-?found\w*|set(?:ting)? up"
         r"|creat(?:ed|ing))\s+(?:a|an|my|our)\s+(?:\w+\s+)?(?:podcast|business|company|startup"
         r"|channel|blog|newsletter|shop|store|band|club|nonprofit|non-profit|charity|brand"
         r"|clinic|practice|studio|agency|app|website|magazine|zine|festival)\b", 1.6),
        (r"\b(?:approved|funded|pitch(?:ed|ing)?|milestone|beta|release|deadline for the)\b", 0.8),
        (r"\b(?:the|this|that|our|my)\s+(?:\w+\s+){0,2}(?:thing|idea|plan|plans|project)\b"
         r"|\bplan(?:ning)? to\b|\bmaking the plan\b|\bstart(?:ing)? a\b|\bstart a\b", 1.2),
        (r"\b(?:looking at|looking for|looking into|visiting|meeting)\s+(?:\w+\s+){0,2}"
         r"(?:puppies|puppy|kittens|breeders?|shelters?)\b"
         r"|\b(?:getting|adopting|adopt|get)\s+(?:a|another)\s+(?:\w+\s+)?(?:dog|puppy|cat"
         r"|kitten|pet)\b",
         3.0),
    ],
    Category.HOBBIES: [
        (r"\b(?:crafts?|crafting|embroidery|cross-stitch|origami|calligraphy|model trains|rc cars"
         r"|warhammer|miniatures|cosplay|anime|manga|book club|orchestra|theat(?:er|re)|improv"
         r"|stand-up|geocaching|metal detecting|archery|fencing|boxing|martial arts|karate"
         r"|judo|bjj|jiu jitsu|muay thai|crossfit|weightlifting|lifting|gym|pilates|spin class"
         r"|rowing|paddleboard\w*|snorkel\w*|scuba|diving|horse riding|equestrian|foraging"
         r"|mushroom hunting|beekeeping|homebrew\w*|brewing beer|wine tasting|grilling|bbq"
         r"|houseplants|bonsai|aquarium|fish tank|sudoku|playstation|xbox|nintendo|steam deck"
         r"|minecraft|fortnite|valorant|league of legends|marathoning|rock climbing)\b", 2.0),
        (r"\b(?:fishing|fly fishing|fished|caught\s+(?:\d+|a|an|" + _NUMWORD + r")\s+"
         r"(?:\w+\s+)?(?:bass|trout|salmon|pike|walleye|fish|perch|carp|catfish)|hunting"
         r"|hunted|buck|deer|gardening|garden|perennials|watercolou?r|painting|paint"
         r"|sketch\w*|drawing|climb|climbing|bouldering|gaming|video games?|elden ring"
         r"|knit|knitting|crochet\w*|sewing|quilting|league|volleyball|soccer|basketball"
         r"|tennis|golf|hockey|pickleball|baseball|softball|band|guitar|piano|drums"
         r"|ukulele|violin|choir|birdwatch\w*|birding|sourdough|baking|camping|hiking"
         r"|hike|backpacking|pottery|ceramics|trail running|trails|surfing|surf|skating"
         r"|skateboard\w*|skiing|snowboard\w*|kayak\w*|canoe\w*|sailing|escape rooms?"
         r"|collect|collecting|collection|dancing|salsa|tango|d&d|dungeons|board games?"
         r"|woodwork\w*|wood carving|carving|telescope|stargazing|photography|cycling"
         r"|mountain biking|swimming|chess|lego sets|building lego|puzzles?|jigsaw|scrapbook\w*"
         r"|karaoke)\b",
         2.0),
        (r"\b(?:in my free time|for fun|hobby|hobbies|took up|taking up|got back (?:on|into)"
         r"|picked up|amateur|whenever \w+ visits|pickup)\b", 1.3),
        (r"\b(?:on (?:the )?weekends|every weekend)\b", 0.7),
        (r"\bplay(?:s|ing)?\s+(?:\w+\s+){0,2}(?:games?|guitar|piano|bass|drums|violin|chess"
         r"|basketball|soccer|football|tennis|golf|volleyball|pickleball|hockey|cards|poker"
         r"|d&d|dungeons)\b|\bplaying\s+(?:a ton of|a lot of)\b", 1.5),
        (r"\b(?:running|jogging|swim|yoga|crossword\w*|reading for fun|plants|flowers"
         r"|boat|lake|course)\b", 0.6),
    ],
    Category.PREFERENCES: [
        (r"\b(?:pet peeve|picky eater|picky about|i'd rather|would rather|like my|my coffee order"
         r"|decaf|iced coffee|halal|kosher|don't eat|do not eat|doesn't eat|can't eat spicy)\b",
         2.0),
        (r"\blisten(?:s|ing)? to\s+(?:a lot of\s+|mostly\s+|only\s+)?(?:jazz|metal|rock|pop|hip hop"
         r"|rap|country|classical|k-?pop|techno|house|edm|indie|punk|folk|r&b|reggaeton|opera"
         r"|lo-?fi|blues)\b|\b(?:coffee|tea|latte|espresso)\b.{0,30}\b(?:strong|weak|black"
         r"|sweet|iced|oat|decaf)\b|\bfor me\b", 1.5),
        (r"\b(?:prefer\w*|favou?rite|fav|fave|go-to|my usual|hate|hates|can't stand"
         r"|cannot stand|not a fan|big fan|fan of|can't live without|only\s+\w+\s+i trust"
         r"|i trust|tastes like|more of a)\b", 2.0),
        (r"\b(?:love|loves|like|likes|enjoy|enjoys|into|dislike|dislikes)\b", 0.7),
        (r"\s>\s|\bmore than\b|\bbetter than\b|\binstead of\b", 1.2),
        (r"\b(?:vegetarian|vegan|pescatarian|keto|paleo|carnivore|plant[- ]based"
         r"|eating\s+(?:fish|meat|dairy|eggs|chicken|pork|beef)|eat\s+(?:meat|fish|pork)"
         r"|my diet|diet)\b", 2.5),
        (r"\b(?:started|stopped|quit|back to|gave up|cut out|cutting out|cut back on)\s+"
         r"(?:eating|drinking|meat|dairy|sugar|caffeine|alcohol|carbs|gluten)\b", 1.5),
        (r"\b(?:pizza|sushi|tacos|burgers?|pasta|ramen|thai|curry|pad see ew|cilantro|coffee"
         r"|espresso|latte|flat whites?|cappuccino|tea|oat milk|almond milk|milk|soda|sparkling"
         r"|beer|wine|whiskey|cocktails?|chocolate|spicy|food|snacks?|sugar|jazz|rock|hip hop"
         r"|rap|country music|classical|horror|movies|films|colou?r|green|blue)\b", 0.6),
        (r"\b(?:drink|drinks|drinking|eat|eats|order|orders)\s+(?:my\s+)?(?:\w+\s+)?"
         r"(?:coffee|tea|black|milk|soda|beer|wine|water)\b|\bno sugar\b|\bwith milk\b", 1.6),
        (r"\b(?:always|never|usually|every (?:day|morning|night)|habit|routine|tend to"
         r"|try (?:not )?to|no longer|anymore"
         r"|only (?:buy|drink|eat|use|wear|read|watch)|quit (?:drinking|eating|smoking))\b",
         1.0),
        (r"\b(?:go to bed|goes to bed|bedtime|wake up|wakes up|up at \d|sleep in|night owl"
         r"|early bird|early riser)\b", 2.0),
        (r"\bswitch(?:ed|ing)?\s+(?:from|to)\b|\bchanged their formula\b", 2.2),
        (r"\b(?:morning|night|cat|dog|coffee|tea|beach|mountain|city|people)\s+person\b", 3.0),
        (r"\b(?:dark mode|light mode|texting|texts?|phone calls|calls|emails?|short answers"
         r"|concise|no fluff|bullet points|(?:british|american) english|formal tone"
         r"|casual tone|window seat|aisle seats?|aisle|seat)\b", 2.0),
        (r"\b(?:answer|reply|respond|write|talk|speak)(?:s|ing)?\s+(?:to\s+)?(?:me\s+)?"
         r"(?:\w+\s+)?in\s+(?:\w+\s+)?(?:english|spanish|french|german|portuguese|italian"
         r"|turkish|japanese|chinese|korean|arabic|hindi|dutch|bullet points|short|plain)\b",
         3.0),
        (r"\b(?:spotify|apple music|iphone|android|kindle|paper books|secondhand"
         r"|second-hand|thrift\w*|brand|formula|oat|bonsoy)\b", 1.0),
    ],
    Category.FINANCIAL: [
        (r"\b(?:venmo|paypal|zelle|bonus|commission|tips|unemployment benefits|social security"
         r"|scholarship|financial aid|tuition|overdraft|overdrawn|bankrupt\w*|in collections"
         r"|insurance premium|deductible|copay|bitcoin|ethereum|an hour|per hour|/hr|hourly"
         r"|side income|passive income|emergency fund|retirement account|rrsp|isa)\b", 1.8),
        (r"[$€£¥₺₹]\s?\d|\b\d[\d,.]*\s?k\b(?!\s*(?:words|steps|followers|views|subscribers"
         r"|miles|km|people|users|downloads|lines|run|race|times))"
         r"|\b\d[\d,.]*\s?(?:grand|bucks|dollars|usd|eur|euros?|gbp|lira|tl"
         r"|cad|aud|rupees?|yen|quid|netto)\b|\b(?:bucks|dollars|euros?|lira|cents|grand"
         r"|quid)\b", 2.5),
        (r"\b(?:rent|mortgage|refinanc\w*|salary|paycheck|payday|pay raise|a raise|income"
         r"|savings|saving up|saved up|budget\w*|debt|debts|loans?|owe|owes|paid off"
         r"|pay(?:ing)? off|credit card|credit score|invest\w*|index funds?|stocks?|401k"
         r"|roth|ira|pension|down payment|net worth|checking|bank account|payout|paying out"
         r"|inherit\w*|tax refund|bills?|insurance is paying)\b", 2.5),
        (r"\b(?:bought|buy|buying|sold|sell|selling|price|prices|pricing|charg(?:e|es|ing)"
         r"|cost|costs|expensive|cheap|afford\w*|owns?|outright|property|farmland|lease"
         r"|broke|paid|pay|spent|spending|earn\w*|make about|makes about|per month|a month"
         r"|/mo\b|/month|per service|a head|per haircut|subscription|insurance|payment)\b", 1.3),
        (r"\bi make\s+(?:about|around|like)?\s*\d", 2.0),
        (r"\b(?:buy|buying|bought|sell|selling|sold|purchas\w+)\s+(?:a|an|the|my|our|his|her)?\s*"
         r"(?:\w+\s+)?(?:house|home|condo|apartment|flat|car|truck|boat|bike|motorcycle|camera"
         r"|laptop|stocks?|shares|land|property|place|van|gear|furniture|jewelry|watch)\b", 2.0),
    ],
    Category.OBLIGATIONS: [
        (r"\b(?:dmv|registration|midterms?|finals|final exam|assignment|homework|essay due|quiz"
         r"|bridesmaid|best man|maid of honou?r|officiant|pallbearer|babysit\w*|pet-?sit\w*"
         r"|house-?sit\w*|dog-?sit\w*|on call|remind me to|don't forget to|can't forget to"
         r"|i should really|i'm on (?:dishes|duty))\b", 1.8),
        (r"\b(?:appointment|appointments|dentist|vet|checkup|check-up|cleaning|follow[- ]?up"
         r"|f/u|physical therapy|therapy sessions|parent-teacher|pta|oncolog\w*|cardiolog\w*"
         r"|dermatolog\w*|neurolog\w*|gyn\w*|ob-gyn|optometrist|orthodontist|specialist"
         r"|ultrasound|scan|bloodwork|blood test|lab work|screening|vaccination appointment"
         r"|consult\w*|jury duty|court date|court|hearing|exam|test|interview|inspection"
         r"|deadline|due|renew\w*|submit\w*|paperwork|file (?:my|the|our) taxes|taxes"
         r"|visa|documents|forms|rsvp|annual review|performance review|compliance)\b", 2.0),
        (r"\b(?:need to|needs to|have to|has to|must|got to|gotta|supposed to|promised"
         r"|committed to|volunteered to|signed up to|responsible for|on the committee"
         r"|owe (?:the|him|her|them|my)\s+\w+\s+(?:an?\s+)?(?:answer|response|call|reply)"
         r"|call\s+(?:\w+\s+){0,3}back|pick up the kids|drive (?:her|him|them))\b", 1.6),
        (r"\b(?:meeting|conference|review|speech|presentation|ceremony|survey|training|shift"
         r"|rehearsal|recital|orientation|session|sessions|therapy|surgery|procedure"
         r"|bake sale|wedding)\b", 1.0),
        (r"\bby\s+(?:" + _WEEKDAY + r"|tomorrow|tonight|the end of|end of|next week|noon"
         r"|\d)|\bdue\s+(?:on|by|in|" + _WEEKDAY + r"|" + _MONTH + r"|tomorrow|next)\b"
         r"|\bbefore it expires\b|\bpostponed\b|\brescheduled\b", 1.5),
    ],
    Category.LOGISTICAL: [
        (r"\b(?:boarding pass|passport control|customs|security line|jet ?lag|checked bag"
         r"|luggage|suitcase|carry-on|reservation|booked|booking|in town|out of town"
         r"|out of (?:the )?office|ooo|on vacation|on holiday|road closed|traffic|detour"
         r"|snow day|school is closed|daycare is closed|power outage|no power|internet is down"
         r"|water is shut off|broke down|flat tire|tow truck|movers|moving day|visiting)\b", 1.8),
        (r"\b(?:flight|flights|airport|gate|boarding|layover|terminal|departs|departure"
         r"|landing|land in|train|ferry|uber|lyft|taxi|cab|rental car|car rental|hertz|avis"
         r"|road trip|itinerary|hotel|check-in|airbnb|hostel|lodging|delivery|courier"
         r"|tracking number|wifi|wi-fi|internet|power is out|working from home"
         r"|wfh|parking|parked|rerouted|delayed|layover|night bus|bus|subway|metro|tram"
         r"|conference room|offline|no signal|the shop this week|in the shop|phone at \d"
         r"|battery)\b", 2.5),
        (r"\b(?:trip|travel\w*|staying at|staying with|staying in|package|arriving|arrives"
         r"|leaves at|leaving|driving up|driving to|drive to|currently in|right now in"
         r"|back home|on my way|omw|dropping off|drop off|picking up|pickup|local time"
         r"|min out|mins out|minutes out|eta|commute|laptop|screen cracked|office is closed"
         r"|closed|for the week|for a conference|cut off|is cut|moved to the|electricity)\b",
         1.3),
        (r"\b(?:i am|i'm)\s+(?:at|in|on)\s+(?:the\s+)?(?:airport|station|hotel|office|cafe"
         r"|café|train|bus|plane|road|highway|home)\b|\b(?:today|right now|for now)\b", 0.9),
        (r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b", 0.8),
    ],
    Category.OTHER: [
        (r"\b(?:dream|dreamt|dreamed|horoscope|rainbow|weird|random|funny|lol|omg"
         r"|somebody|someone|a guy|the guy|a pigeon|a bird|a fox|the weather|raining"
         r"|snowing|heatwave|smell)\b", 0.5),
    ],
}

#: Retraction: the statement withdraws an earlier plan or fact.
RETRACTION_PATTERNS: list[str] = [
    r"\bforget\s+(?:that\s+|what\s+)?i\s+(?:ever\s+)?(?:mentioned|said|told you|brought)",
    r"\bforget\s+(?:about\s+)?(?:it|that|the whole thing)\b(?!\s+(?:is|was))",
    r"\b(?:never ?mind|nvm|scratch that|disregard what i said|ignore what i said)\b",
    r"\b(?:is|'s|was|are|'re)\s+(?:now\s+|officially\s+|totally\s+)?(?:dead|off"
    r"|cancell?ed|scrapped|not happening|called off)\b",
    r"\bscrap(?:ped|ping|s)?\b|\bcancell?(?:ed|ing)\b|\bcalled\s+(?:it\s+|the \w+\s+)?off\b",
    r"\bcall(?:ing)?\s+(?:it|the whole thing)\s+off\b",
    r"\b(?:not|isn't|is not|aren't|won't be)\s+happening\b|\bwon't happen\b",
    r"\bdrop(?:ped|ping)?\s+(?:the\s+)?(?:idea|plan|it)\b|\babandon(?:ed|ing)?\b",
    r"\bfell through\b|\bfalls through\b|\boff the table\b|\bbacked out\b|\bpulled out of\b",
    r"\bgiv(?:e|ing)\s+up\s+on\s+(?:the\s+)?(?:idea|plan)\b|\bgave up on the (?:idea|plan)\b",
    r"\bno longer\s+(?:happening|going ahead|planning|going to happen)\b|\bshelved\b",
    r"\bnot (?:doing|going through with)\s+it\s+(?:anymore|after all)\b",
    r"\bchanged my mind\b|\bdecided against\b|\bdecided not to\b|\btake (?:that|it) back\b"
    r"|\bwon't be (?:going|doing|happening)\b|\bno longer doing\b|\bnot going ahead\b",
]

#: Completion: the statement closes a project or task slot.
COMPLETION_PATTERNS: list[str] = [
    r"\b(?:finished|completed|defended|shipped|wrapped up|finished up|paid off|handed in"
    r"|turned in|graduated|got (?:\w+\s+){0,3}accepted|crossed the finish line)\b",
    r"\bdone with\b|\b(?:all|now|finally|officially|is|are|am|'s|'m|-ready)\s+done\b",
    r"\b(?:camera-ready|draft|it|thesis|project)\s+(?:is\s+)?done\b|\bdone\s*(?:!|$)",
    r"\bfinally\s+(?:finished|done|submitted|shipped|launched)\b",
    r"\bpassed (?:my|the)\s+(?:\w+\s+)?(?:test|exam|bar|boards|defense|defence|inspection)\b"
    r"|\bpublished\b|\blaunched\b|\bsigned the (?:contract|deal|lease)\b|\bclosed on\b",
]
#: Words that, just before a completion verb, make it a plan rather than a report.
COMPLETION_GUARD = (
    r"\b(?:need to|needs to|have to|has to|must|to|will|gonna|going to|want to|wanna|hope to"
    r"|plan to|trying to|try to|by|before|haven't|hasn't|not|never|can't|cannot|should|until"
    r"|almost|nearly)\s+(?:\w+\s+)?$"
)

#: Tentative: hedged, undecided, considered.
TENTATIVE_PATTERNS: list[str] = [
    r"\bthinking\s+(?:about|of|abt)\b|\bconsidering\b|\bmight\b|\bmaybe\b|\bperhaps\b",
    r"\bpossibly\b|\bnot\s+(?:yet\s+)?(?:decided|sure)\b|\bundecided\b|\bhaven'?t decided\b",
    r"\bhasn'?t decided\b|\bstill deciding\b|\bon the fence\b|\btoying with\b|\bweighing\b",
    r"\bwondering\s+(?:if|whether|about)\b|\btempted\b|\bif (?:the|all|everything)\s+\w+\s+"
    r"(?:holds|goes|works)\b|\bnot 100%\b|\bmay\s+(?:be|start|go|try|take|move|switch|get|do"
    r"|quit|change)\b|\bkind of want\b|\bkinda want\b|\bleaning towards?\b|\bdebating\b",
    r"\bhoping to\b|\bhope to\b|\bsomeday\b|\bone day i\b|\beventually\b|\bnot sure if\b"
    r"|\bunsure\b|\b50/50\b|\b(?:might|could) end up\b|\bdon't know if\b|\bno idea if\b"
    r"|\bin two minds\b|\bmulling\b|\bplaying with the idea\b|\btentative\w*\b",
]

#: Explicit change of a value ("switched to", "moved to", "no longer", "now"): the
#: statement itself says the earlier value is over, which App. Z asks of a hard
#: supersession in accumulate categories ("only an explicit, very confident contradiction").
CHANGE_PATTERNS: list[str] = [
    r"\b(?:switched|switching|changed|changing|moved|moving|transferred|converted|went)\s+"
    r"(?:over\s+)?(?:to|from|into)\b",
    r"\b(?:no longer|not anymore|any ?more|these days|nowadays|from now on|as of (?:today|now"
    r"|this \w+))\b",
    r"\b(?:i|we)(?:'m| am| are)?\s+now\b|\bnow\s+(?:i|we)\b|\b(?:is|are)\s+now\b"
    r"|\bnow\W*$",
    r"\b(?:new job|start(?:ed|ing)? (?:a new job |working )?at|joined|joining|left (?:my job"
    r"|the company|\w+))\b",
    r"\b(?:instead of|rather than|replaced|replacing|upgraded|downgraded|raised|lowered|went up"
    r"|went down|increased|decreased|cut (?:back|down))\b",
    r"\b(?:stopped|quit|gave up|dropped)\b",
]

#: Emotional loading: affect words and their loading in [0, 1].
EMOTION_PATTERNS: list[Pattern] = [
    (r"\b(?:devastated|heartbroken|crushed|grief|grieving|traumati\w+|suicidal)\b", 0.8),
    (r"\b(?:terrified|furious|enraged|panic\w*|overwhelmed|hopeless|miserable|crying|cried"
     r"|sobbing|depressed|ecstatic|over the moon)\b", 0.6),
    (r"\b(?:stressed|stress|anxious|angry|pissed|scared|frustrated|screwed|exhausted"
     r"|lonely|thrilled|so happy|proud|heartbreaking|killing me|breathing down my neck"
     r"|nervous|worried|upset|wtf|fml|freaking out)\b", 0.45),
    (r"\b(?:excited|ugh|omg|hate|ridiculous|annoyed|annoying|sad|happy|love|relieved"
     r"|finally|wild|trash|awful|terrible|amazing|yay)\b", 0.25),
    (r"!!+|\bso+\s+(?:tired|stressed|happy|sad|mad|excited)\b", 0.2),
]

#: Instruction-like content addressed to the assistant (quarantined downstream, App. B.5).
INSTRUCTION_PATTERNS: list[str] = [
    r"\bignore\s+(?:all\s+|any\s+|the\s+|your\s+|my\s+)?(?:previous|prior|above|earlier"
    r"|preceding|all)?\s*(?:instructions|prompts?|rules|messages|directions|guidelines)\b",
    r"\bdisregard\s+(?:all\s+|any\s+|the\s+|your\s+)?(?:previous\s+|prior\s+)?(?:instructions"
    r"|guidelines|rules|policies|system|safety)\b",
    r"\bforget\s+(?:everything|all)\s+(?:above|before|previous|prior|you were told|you know)\b",
    r"\bsystem\s+(?:prompt|message)\b|^\s*(?:system|assistant|developer)\s*(?:note|prompt"
    r"|message)?\s*:",
    r"\byou are now\b|\bact as\b|\bpretend\s+(?:to be|you are|you're)\b|\broleplay as\b"
    r"|\bjailbreak\w*\b|\bdan\b|\bdeveloper mode\b|\bdo anything now\b",
    r"\byou\s+(?:must|will|shall|should|have to)\s+(?:always|never|now|only|obey|ignore"
    r"|disregard|comply|agree|answer|reply|respond|end|start|follow|forget|reveal|pretend)\b",
    r"\b(?:always|only|never)\s+(?:answer|reply|respond|write|speak|talk)\b",
    r"\bfrom now on\b,?\s*(?:you|always|only|never|reply|answer|respond|speak|talk|use"
    r"|write)\b|\bnew (?:rule|instruction)s?\b|\bobey\b",
    r"\breveal\s+(?:your|the)\s+(?:prompt|instructions|system|rules)\b"
    r"|\b(?:admin|root|developer|sudo)\s+(?:privileges|access|mode|rights)\b"
    r"|\bskip\s+(?:all\s+)?(?:the\s+)?(?:confirmations?|safety|checks|verification)\b"
    r"|\bend\s+(?:every|each|all)\s+(?:answer|reply|response|message)s?\s+with\b"
    r"|\bnever mention\b|\bwithout (?:any )?restrictions\b|\bunrestricted\b",
    r"\bprint (?:your|the) (?:instructions|prompt|system)\b|\boverride (?:your|the|all)\b"
    r"|\bbypass (?:the |your |all )?(?:filters?|safety|rules|restrictions)\b"
    r"|\b(?:respond|reply|answer) only with\b|\b(?:do not|don't|never) refuse\b"
    r"|\byou have no (?:restrictions|rules|limits)\b|\bno longer bound by\b",
]

#: General knowledge statements (not about the user).
WORLD_KNOWLEDGE_PATTERNS: list[str] = [
    r"\b(?:capital of|boils? at|freezes? at|melts? at|speed of (?:light|sound)|population"
    r"|(?:million|billion) (?:people|inhabitants|years)|tallest|largest|smallest|longest"
    r"|deepest|highest|located in|last erupted|erupted|technically|comes out|came out"
    r"|(?:is|are) (?:a|an)\s+(?:type|kind|species|form) of|orbits?|the earth|the sun"
    r"|light[- ]years?|chemical|element|atoms?|molecules?|dna|gravity|approximately"
    r"|sea level|per second|invented|discovered|founded|was built|were built|is made of"
    r"|are made of|was (?:written|directed|painted|composed|invented|designed) by"
    r"|(?:fell|ended|began|happened|occurred|took place|started) in \d{4}"
    r"|is the (?:president|ceo|prime minister|king|queen|leader|founder) of|national (?:language"
    r"|animal|dish)|official language|won the (?:world cup|super bowl|election|nobel)"
    r"|(?:is|are)\s+(?:\w+\s+)?(?:mammals|reptiles|birds|fish|insects|berries"
    r"|fruits|vegetables|planets|stars|countries|cities)|landing|the war|empire|dynasty)\b",
    r"\b(?:is|are|was|were)\s+(?:about|around|roughly|approximately)?\s*[\d,.]+\s*(?:m|km|kg"
    r"|miles|meters|metres|feet|ft|degrees|°c?|°f?|years|tons|people)?\s*(?:tall|long|high"
    r"|deep|old|wide|away)?\b",
    r"\b\d+\s*°?\s*(?:c|f|celsius|fahrenheit)\b|\b(?:was|were)\s+in\s+\d{4}\b"
    r"|\bhas\s+(?:like\s+|about\s+|around\s+)?[\d,.]+\s*(?:million|billion|thousand)?\s*"
    r"(?:people|inhabitants|residents|citizens|species)\b",
]

#: A first-person / user reference (on normalized text, where "user" became "i").
PERSONAL = (
    r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|we'll|we'd|our|ours|us"
    r"|ourselves|user|user's)\b"
)
