"""Word lists and patterns the rule stages share (Chinese and English side by side).

Kept as data so they can be reviewed and extended without touching stage logic.
"""

from __future__ import annotations

import re


def _alt(words: str) -> str:
    return "|".join(sorted((re.escape(w) for w in words.split("|") if w), key=len, reverse=True))


def _en(words: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w'])(?:" + _alt(words) + r")(?![\w'])", re.IGNORECASE)


def _zh(words: str) -> re.Pattern[str]:
    return re.compile("(?:" + _alt(words) + ")")


# Whole messages that carry nothing worth remembering (compared after stripping punctuation/emoji).
FILLERS_ZH = set(
    [
        "在吗",
        "在不在",
        "在么",
        "好的",
        "好的好的",
        "好",
        "好滴",
        "好嘞",
        "嗯",
        "嗯嗯",
        "嗯呢",
        "哦",
        "哦哦",
        "噢",
        "啊",
        "哈哈",
        "哈哈哈",
        "哈哈哈哈",
        "呵呵",
        "嘿嘿",
        "谢谢",
        "谢谢你",
        "多谢",
        "感谢",
        "收到",
        "明白",
        "明白了",
        "知道了",
        "了解",
        "懂了",
        "行",
        "行吧",
        "可以",
        "可以的",
        "没问题",
        "对",
        "对的",
        "是的",
        "是啊",
        "嗯好",
        "ok",
        "好吧",
        "稍等",
        "稍等一下",
        "等一下",
        "等等",
        "稍等我看下",
        "我看下",
        "我看看",
        "晚安",
        "早安",
        "早",
        "早上好",
        "晚上好",
        "拜拜",
        "再见",
        "回头聊",
        "下次聊",
        "你好",
        "您好",
        "嗨",
        "哈喽",
        "不客气",
        "没事",
        "厉害",
        "牛",
        "赞",
        "太棒了",
        "真棒",
        "不错",
        "好耶",
        "辛苦了",
    ]
)
FILLERS_EN = set(
    [
        "hey",
        "hi",
        "hello",
        "hiya",
        "yo",
        "ok",
        "okay",
        "ok cool",
        "okay cool",
        "cool",
        "k",
        "kk",
        "brb",
        "lol",
        "lmao",
        "rofl",
        "haha",
        "hahaha",
        "hehe",
        "ty",
        "thx",
        "thanks",
        "thank you",
        "thanks a lot",
        "thank you so much",
        "np",
        "no problem",
        "yep",
        "yup",
        "yeah",
        "yes",
        "no",
        "nope",
        "sure",
        "got it",
        "gotcha",
        "bye",
        "bye bye",
        "see ya",
        "see you",
        "later",
        "good night",
        "gn",
        "good morning",
        "gm",
        "nice",
        "great",
        "awesome",
        "wow",
        "omg",
        "hmm",
        "hm",
        "uh",
        "um",
        "right",
        "alright",
        "all right",
        "sounds good",
        "cool thanks",
        "ok thanks",
        "okay thanks",
        "noted",
        "one sec",
        "wait",
        "hold on",
        "welcome",
        "you're welcome",
        "cheers",
        "same",
        "me too",
        "indeed",
        "true",
        "exactly",
        "totally",
    ]
)
# "I'll be right back" style messages: going away for a moment.
AWAY = re.compile(
    r"^(?:我先去|我去|先去|等我|我要去)(?:吃(?:个|点)?饭|洗(?:个)?澡|开(?:个)?会|忙|上(?:个)?厕所|睡(?:觉|了)?|一下)"
    r"|^(?:brb|gtg|g2g|gotta go|be right back|talk (?:to you )?later|ttyl)\b",
    re.IGNORECASE,
)

EXPLICIT = re.compile(
    r"记住|记得|别忘了|不要忘了|不要忘记|别忘记|提醒我|帮我记|请记|以后都|以后下单"
    r"|\b(?:remember|don'?t forget|do not forget|note that|make a note|keep in mind|remind me|for future reference)\b",
    re.IGNORECASE,
)
MILESTONE = re.compile(
    r"完成了|做完了|写完了|搞定了|弄好了|提交了|已提交|交了|付款了|已付款|付了|支付了|已支付|确认了|已确认|取消了|推迟了|延期了|改期了|失败了|没通过|通过了|"
    r"\b(?:completed|finished|done|submitted|paid|confirmed|cancell?ed|postponed|rescheduled|failed|delayed|approved|rejected|shipped|delivered)\b",
    re.IGNORECASE,
)
DONE = re.compile(
    r"完成了|做完了|写完了|搞定了|弄好了|提交了|已提交|交了|付款了|已付款|付了|支付了|已支付|已确认|通过了"
    r"|\b(?:completed|finished|done|submitted|paid|approved|shipped|delivered)\b",
    re.IGNORECASE,
)
# the narrow cues that say a cancellation whatever kind the sentence was judged ("洗牙取消了" read as a fact);
# CANCELLED adds those that say it only of a plan ("dropped the trip", "abandoned", 不去了)
_CANCEL_ANY = (
    r"取消了|已取消|\b(?:cancell?ed|cancell?ing|(?:had|have|has|need(?:ed)?) to cancel|called off)\b"
)
CANCELLED_ANY_KIND = re.compile(_CANCEL_ANY, re.IGNORECASE)
# "dropped" cancels when something is dropped ("we dropped the trip", "the plan was dropped", "dropped out"),
# not when it drops: "my album finally dropped on the 11th" is a release, "prices dropped" a fall
_DROPPED = (
    r"\b(?:(?:was|were|been|got|get|is|are|being)\s+dropped|dropped\s+"
    r"(?:out|the|my|our|his|her|their|its|it|them|those|these"
    r"|(?:this|that)(?!\s+(?:morning|afternoon|evening|night|week|weekend|month|year|summer|spring|fall|winter)))"
    r"|abandoned)\b"
)
CANCELLED = re.compile(_CANCEL_ANY + r"|不去了|不做了|作废|" + _DROPPED, re.IGNORECASE)
# words with 不 / 没 inside that deny nothing (不错, 迫不及待), and English idioms shaped like a negation
NEGATION_IDIOMS_ZH = re.compile(
    r"不错|不过|不好意思|不少|不同|不断|差不多|不仅|要不|不久|迫不及待|忍不住|了不起"
)
NEGATION_IDIOMS_EN = re.compile(
    r"\b(?:can'?t|cannot|couldn'?t) (?:wait|believe|stop smiling|be happier|be prouder|thank you enough)\b"
    r"|\bno (?:worries|problem|doubt)\b|\bnot only\b|\bnever mind\b",
    re.IGNORECASE,
)
CHANGE = re.compile(
    r"改签|改到|改成|改为|换成|换到|改期|推迟到|延期到|提前到|挪到|调到|搬到|搬去|搬家|换工作|跳槽|不再|现在改|已经不|改了"
    r"|\b(?:moved to|moved|relocated|changed to|changed|switched to|switched|rescheduled|postponed|pushed back|"
    r"moved up|no longer|not anymore|instead|now live|now work|new job|updated to"
    r"|(?:lost|quit) (?:my|his|her|their|\w+'s) job|(?:got|was|were|been) laid off)\b"
    r"|失业了|被裁了?|丢了工作",
    re.IGNORECASE,
)
# a plan moved to another time with the thing moved in between: "Priya pushed our 1:1 to Thursday", "they bumped
# the demo to the 14th", "客户把见面改到周五" (the single change words are in CHANGE; "pushed" or "bumped" alone
# are not change words: "pushed myself", "bumped into Tom")
MOVED_TO = re.compile(
    r"\b(?:moved|pushed(?:\s+back)?|postponed|rescheduled|delayed|bumped|shifted|changed|switched|moved\s+up)"
    r"\s+(?:[\w'’:-]+\s+){0,5}?(?:to|until|till)"
    r"\s+(?:next\s+|this\s+|the\s+)?(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
    r"|tomorrow|\d)"
    r"|(?:改|挪|推迟|延期|顺延|推|调|提前)到了?(?=周|星期|礼拜|下|明|后|本|这|\d|[一二三四五六七八九十])",
    re.IGNORECASE,
)
EXCEPTION = re.compile(
    r"但是|但|不过|除了|除非|例外|唯独|只有.{0,6}可以|可以例外"
    r"|\b(?:except|but|unless|however|although|though|apart from|other than)\b",
    re.IGNORECASE,
)
PREFERENCE = re.compile(
    r"喜欢|爱吃|爱喝|爱看|爱玩|爱好|偏好|更喜欢|最喜欢|讨厌|受不了|不爱|过敏|忌口|口味|习惯|平时就?爱|一般都?"
    r"|\b(?:prefer|prefers|like|likes|love|loves|enjoy|enjoys|hate|hates|favou?rite|allergic|can'?t stand|"
    r"fond of|into|dislike|dislikes|passionate about)\b",
    re.IGNORECASE,
)
# a liking that rules out its alternatives ("prefer", "favourite", 更喜欢, 最喜欢): a new one of the same thing
# replaces the old one, where "I also like hiking" or 开始喜欢爬山 adds a liking beside the others
EXCLUSIVE_LIKING = re.compile(
    r"更喜欢|更爱|更偏爱|更偏向|最喜欢|最爱|偏好|改喜欢|改成|换成|变成"
    r"|\b(?:prefer|prefers|preferring|preferred|rather|favou?rite|instead of|switched to|switched over to)\b",
    re.IGNORECASE,
)
# a liking said as the one that holds now, against an older one
NOW_LIKING = re.compile(
    r"现在|如今|最近|这阵子|这段时间|后来|开始|改|变|换"
    r"|\b(?:now|these days|nowadays|lately|started|starting|start|anymore|switched|instead|changed)\b",
    re.IGNORECASE,
)
CONSTRAINT = re.compile(
    r"不要|别|不能|不可以|禁止|必须|只能|务必|一定要|千万|不吃|不喝|不用|勿|不许|打扰"
    r"|\b(?:don'?t|do not|never|must|only|avoid|no more|please don'?t|should not|shouldn'?t|can'?t eat|vegetarian|vegan)\b",
    re.IGNORECASE,
)
# an allergy is a constraint, not a liking: it governs what may be served, ordered or prescribed. (PREFERENCE
# keeps its allergy words: the learned judges read it as a feature, as they were trained.)
ALLERGY = re.compile(
    r"过敏|忌口|不耐受|\b(?:allergic|allergy|allergies|intolerant|intolerance)\b",
    re.IGNORECASE,
)
PROFILE = re.compile(
    r"我是|我叫|名字是|我在.{1,12}(?:工作|上班|上学|读书)|住在|我家在|老家|生日|(?<!\d)\d+岁|养了|我的.{1,6}是|我有一?个|我女儿|我儿子|我老婆|我老公|我妈|我爸|我太太|我先生|我男朋友|我女朋友|职业|专业"
    r"|\b(?:my name is|i am a|i'm a|i work|i live|i'm from|i am from|my birthday|years old|i have a|my wife|my husband|"
    r"my partner|my son|my daughter|my kids|my mom|my dad|my job|i study|i'm studying|my major|my family|"
    r"i grew up|my hometown|identify as)\b",
    re.IGNORECASE,
)
PLAN = re.compile(
    r"打算|计划|准备|要去|将要|下周|明天|后天|下个月|明年|周[一二三四五六日天末]|星期[一二三四五六日天]|订了|预约|约了|安排"
    r"|\b(?:plan|plans|planning|going to|gonna|will|booked|scheduled|appointment|meeting|trip|next week|tomorrow|"
    r"next month|next year|reserve|reserved)\b",
    re.IGNORECASE,
)
TASK = re.compile(
    r"任务|待办|要做|需要|得在|截止|之前|报告|提交|作业|项目|\b(?:todo|to-do|task|deadline|due|need to|have to|must|report|submit|finish)\b",
    re.IGNORECASE,
)
# a report that a planned thing happened or got done, said without 完成/done: "空调换好了", "签好合同了",
# "拔完牙", "交给周老师了", "the conference went well", "I finally wrapped that up"; and the outing or work
# itself reported as gone to or handed in (write/merge.py asks it of two words both memories name, in time):
# "traveled to a meditation retreat" after "signed up for a meditation course at a retreat", 上周去了莫干山的禅修营
# after 报名了莫干山的禅修营
COMPLETED = re.compile(
    r"[换签做写弄办修装拔交搞买]好了?|[做写弄办拔看吃改交考录开跑]完|上完了|按时交|交给.{1,6}了|已经?交"
    r"|(?:去了|参加了|递交了|提交了)(?!吗)|从.{1,12}回来"
    r"|\b(?:went well|went great|wrapped (?:it |that |this )?up|took place|got back from|is over|was over|"
    r"was (?:great|amazing|awesome)|were (?:great|amazing)"
    r"|went to|traveled to|travelled to|got to (?:go to|attend)|attended|came back from|returned from"
    r"|applied (?:to|for)|sent in|handed in|turned in)\b",
    re.IGNORECASE,
)
# a question that brings a thing back, for what the next sentence says of it: "Remember the tough engineering
# project? I finally wrapped that up", 还记得那个采样任务吗？我昨天补完了
REMINDER_WORDS = r"(?:(?:do|did) you |you )?(?:remember|recall)\b|你?还?记得"
REMINDER = re.compile(rf"^(?:{REMINDER_WORDS})", re.IGNORECASE)
# work under way or an outing signed up for, said with no date ("has been working on a big project",
# "busy getting ready for a yoga retreat", "signed up for a meditation course", "Researching adoption agencies",
# 最近在忙着准备毕业展, 报名了一个陶艺班): an open plan or task that a later report can close, not a standing fact.
# A wish or a thought ("thinking of getting a dog", 在考虑换工作) is no work under way.
ONGOING = re.compile(
    r"(?:正在|一直在|最近在|在忙着?|忙着)(?:准备|筹备|备考|赶|写|弄|搞|做|研究|调研|了解|找)"
    r"|报名了|报了名|报了[^，。！？,.!?]{1,8}(?:班|课|营|团)"
    r"|\b(?:signed up for|registered for)\b"
    r"|\b(?:been|am|'m|is|'s|are|'re|currently|still)\s+(?:(?:really|so|super|pretty)\s+)?(?:busy\s+)?"
    r"(?:working on|getting ready for|preparing for|prepping for|training for|researching|looking into)\b"
    r"|^\W*(?:researching|working on|preparing for|getting ready for)\b",
    re.IGNORECASE,
)
COMPLAINT = re.compile(
    r"投诉|坏了|破了|损坏|太差|失望|生气|退货|退款|烂|糟糕|气死|差评|不满意|有问题|裂了|碎了"
    r"|\b(?:broken|damaged|cracked|terrible|awful|refund|complaint|complain|disappointed|angry|furious|"
    r"worst|defective|late again|not working|doesn'?t work|frustrated|upset)\b",
    re.IGNORECASE,
)
HABIT = re.compile(
    r"每天|每周|每个?月|每年|每次|经常|总是|通常|一般|平时|向来|习惯"
    r"|\b(?:every|each|usually|always|often|normally|typically|weekly|daily|monthly|"
    r"on (?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends))\b",
    re.IGNORECASE,
)
SELF = re.compile(r"我|\b(?:I|I'm|I've|I'll|I'd|my|me|mine)\b")
TEMPORARY = re.compile(
    r"这次|本次|暂时|临时|先用|今天先|这一次|当前任务|这个任务"
    r"|\b(?:this time|for now|temporarily|for this task|just this once|for today|right now)\b",
    re.IGNORECASE,
)
NEGATION_ZH = re.compile(r"不|没|别|勿|无|非|莫|未")
NEGATION_EN = re.compile(
    r"\b(?:not|never|no|don'?t|doesn'?t|didn'?t|won'?t|can'?t|cannot|isn'?t|aren'?t|without|nobody|nothing)\b|n't\b",
    re.IGNORECASE,
)

QUESTION_END = re.compile(r"[?？]\s*$")
QUESTION_START_EN = re.compile(
    r"^(?:what|when|where|who|whom|why|how|which|is|are|was|were|do|does|did|can|could|would|will|should|have|has|had|any)\b",
    re.IGNORECASE,
)
QUESTION_ZH = re.compile(r"吗[？?]?$|呢[？?]?$|什么|怎么|为什么|哪|几点|多少|是不是|有没有|能不能|可不可以")

# A yes/no question: asks for a decision, so its reply says yes or no before anything else ("Do you want me
# to book a booth?", "Shall I order it?", "要我下单吗？", "要不要改到第二天？", "需要我帮你约复查吗？").
POLAR_QUESTION_EN = re.compile(
    r"^(?:(?:so|and|ok(?:ay)?|great|alright|also)[,!]?\s+)?(?:do|does|did|is|are|was|were|can|could|would|will|should|shall|"
    r"may|have|has|want|wanna|need)\b",
    re.IGNORECASE,
)
POLAR_QUESTION_ZH = re.compile(
    r"(?:吗|么|嘛)\s*[？?]?\s*$|要不要|需不需要|是不是|能不能|可不可以|好不好|行不行|对不对|有没有"
)
# A reply that opens with its decision: the rest of the reply gives its reasons or conditions, and the
# decision says nothing without the question it answers ("No, too expensive.", "算了，先不买，等看完牙再说。").
DECISION_EN = re.compile(
    r"^(?:no|nope|nah|not (?:now|yet|this time|really)|maybe later|let'?s not|don'?t bother|i'?ll pass|"
    r"yes|yeah|yep|yup|sure|ok(?:ay)?|fine|please do|go ahead|do it|sounds good|let'?s do (?:it|that)|"
    r"absolutely|definitely|of course)\b",
    re.IGNORECASE,
)
DECISION_ZH = re.compile(
    r"^(?:(?:先不|暂时不|还是不|别|那就|麻烦你)"  # these run on into their verb: 先不买, 别拉他, 那就改吧
    r"|(?:不用了?|不要了?|不了|算了|好的|好啊|好吧|好|行|可以|要的?|嗯+|对|没问题|就这么办|[改订买约办报发续降谈]吧)"
    r"[哦啊呀吧的了]?(?:[，,。.！!、~～\s]|$))"
)

# Sentences in a conversation that react rather than inform.
REACTION_EN = re.compile(
    r"^(?:(?:hey|hi|hello|wow|whoa|omg|oh|aww+|yay|haha|lol|ooh|ah|yes|yeah|thanks|thank you|congrats|congratulations|"
    r"awesome|amazing|cool|great|nice|sweet|lovely|wonderful|sounds (?:great|good|fun|awesome|amazing|lovely)|"
    r"that'?s (?:so |really |super |totally )?(?:great|awesome|amazing|cool|nice|wonderful|fantastic|incredible|"
    r"impressive|sweet|lovely|exciting|inspiring|beautiful|fun|good|terrific)|"
    r"good (?:to see|to hear|for you|luck)|glad (?:to hear|you)|i'?m (?:so )?(?:happy|glad|proud) (?:for|of) you|"
    r"take care|see you|talk soon|bye|good night|keep (?:it up|up the good work|going)|you got this|you'?re welcome|"
    r"no worries|me too|same here|totally|exactly|definitely|absolutely|of course|sure|right|true)\b[^.!?]*[.!?]*\s*)$",
    re.IGNORECASE,
)
REACTION_ZH = re.compile(
    r"^(?:哇|哇塞|太棒了|真棒|真好|好厉害|厉害|恭喜|哈哈+|嗯+|好的|谢谢|加油|不错|真不错|太好了)[！!。～~]*$"
)

# People of the speaker's circle, as one speaks of them: relatives, partners, friends, colleagues. One list for
# the subject of a statement (lang/subject.py) and the supersede guard (write/supersede_guard.py). Chinese
# longest first, so 表哥 is read before 哥哥 and 男朋友 before 朋友.
_CIRCLE_ZH_WORDS = (
    "妈妈 老妈 母亲 爸爸 老爸 父亲 爸妈 父母 老婆 老公 妻子 丈夫 太太 爱人 媳妇 女朋友 男朋友 女友 男友 对象 "
    "未婚妻 未婚夫 前男友 前女友 前妻 前夫 女儿 儿子 孩子 闺女 宝宝 哥哥 姐姐 弟弟 妹妹 爷爷 奶奶 外公 外婆 "
    "姥姥 姥爷 叔叔 阿姨 舅舅 舅妈 姑姑 姨妈 小姨 婶婶 伯伯 表哥 表姐 表弟 表妹 堂哥 堂姐 堂弟 堂妹 侄子 侄女 "
    "外甥 外甥女 孙子 孙女 岳父 岳母 公公 婆婆 家人 同事 朋友 好友 闺蜜 兄弟 哥们 室友 舍友 老板 领导 上司 "
    "经理 主管 同学 邻居 老师 导师 客户 师傅 徒弟 合伙人 搭档 房东 教练 医生"
)
CIRCLE_ZH = tuple(sorted(set(_CIRCLE_ZH_WORDS.split()), key=lambda w: (-len(w), w)))
CIRCLE_EN = (
    r"mom|mother|mum|dad|father|parents|wife|husband|partner|girlfriend|boyfriend|gf|bf|fianc[ée]e?|spouse|"
    r"daughter|son|kids?|children|child|baby|sister|brother|siblings?|grandma|grandmother|grandpa|grandfather|"
    r"grandparents|aunt|uncle|cousin|niece|nephew|in-laws?|colleagues?|co-?workers?|friends?|buddy|bestie|"
    r"roommates?|flatmates?|boss|manager|neighbou?rs?|classmates?|teacher|landlord|landlady|coach|doctor|"
    r"therapist|teammates?|client|mentor|family"
)

# the user asking the assistant to do something: "帮我订周六晚上的西贝", "Book me the Hyatt for Nov 5", "can you
# reserve a table"
REQUEST = re.compile(
    r"帮我|给我|替我|帮忙|麻烦你?|请你?(?:帮|给|订|约|安排|预订|预约)|订一?[个张间]|约一?[个下]"
    r"|\b(?:book me|book us|book a|book the|please (?:book|reserve|schedule|order|set up|arrange)|reserve|"
    r"(?:can|could|would) you (?:book|reserve|schedule|order|set up|arrange|get)|schedule (?:me|us|a)|"
    r"set up a|order me|get me)\b",
    re.IGNORECASE,
)

# titles written with a period that ends no sentence ("Dr. Okafor", "Mr. Smith at St. Mary's"): the sentence
# splitter and the tense's sentence both read them (lang/clauses.py, lang/timeparse_en.py)
TITLES = ("Mr", "Ms", "Dr", "St", "Jr", "Sr", "Mt", "Mrs", "Prof", "Capt", "Gen", "Rev", "Sgt")

# a partner, as the speaker calls them, and the end of a relationship with one ("我跟陈浩分手了", "we split up")
PARTNER = re.compile(
    r"女朋友|男朋友|女友|男友|对象|老婆|老公|妻子|丈夫|太太|爱人|媳妇|未婚妻|未婚夫"
    r"|\b(?:girlfriend|boyfriend|gf|bf|wife|husband|partner|fianc[ée]e?|spouse)\b",
    re.IGNORECASE,
)
# one relation said in other words: a query for "我对象" or "my wife" asks about the memory of "用户的男朋友" or
# "the user's spouse" (read/rerank.subject_fit)
KIN_SAME = (
    PARTNER,
    re.compile(r"妈妈|母亲|老妈|妈|娘|\b(?:mom|mum|mother|mommy|mama)\b", re.IGNORECASE),
    re.compile(r"爸爸|父亲|老爸|爸|爹|\b(?:dad|father|daddy|papa)\b", re.IGNORECASE),
    re.compile(r"儿子|孩子|娃|小孩|\b(?:son|kids?|child|children)\b", re.IGNORECASE),
    re.compile(r"女儿|闺女|孩子|娃|小孩|\b(?:daughter|kids?|child|children)\b", re.IGNORECASE),
    re.compile(
        r"公公|婆婆|岳父|岳母|丈母娘|老丈人|\b(?:in-laws?|mother-in-law|father-in-law)\b", re.IGNORECASE
    ),
)
BREAKUP = re.compile(
    r"分手|离婚|离了婚|分开了|掰了|散了"
    r"|\b(?:broke up|break up|breaking up|split up|splitting up|divorced|divorcing|separated|called it quits)\b",
    re.IGNORECASE,
)

# Greetings, thanks and farewells: they open or close a talk and never answer a question, even when
# they follow one ("How can I help you today?" / "你好").
PLEASANTRY = re.compile(
    r"^(?:hi|hey|hello|hiya|howdy|good (?:morning|afternoon|evening|night)|thanks?(?: you)?(?: so much| a lot)?|"
    r"thank you(?: so much| very much)?|cheers|bye|goodbye|see (?:you|ya)|take care|you'?re welcome|"
    r"你好呀?|您好|嗨|哈喽|早上好|早安|下午好|晚上好|晚安|谢谢(?:你|您)?|多谢|感谢|再见|拜拜|回头见|不客气|"
    r"(?:my\s+|我的)?(?:dear\s+)?(?:朋友|亲爱的|friend|buddy|pal))"
    r"(?:\s+(?:there|again|everyone|all))?"
    # the listener addressed: "Hello, friend", "Hello, my friend", "你好，我的朋友"
    r"(?:[\s,，、]*(?:my\s+|我的)?(?:dear\s+)?(?:朋友|亲爱的|宝贝|老师|friend|buddy|dear|pal|mate))?[\s,，、!！.。~～呀啊哦]*$",
    re.IGNORECASE,
)

ID_PATTERN = re.compile(
    r"(?<![\w-])#?([A-Z]{1,5}-?\d{2,}[A-Z0-9-]*|\d{2,}-[A-Z0-9-]+|[A-Z0-9]{2}\d{3,4})(?![\w-])"
)
AMOUNT = re.compile(
    r"[¥￥$€£]\s?\d[\d,]*(?:\.\d+)?|(?<!\d)(?<!\d,)\d[\d,]*(?:\.\d+)?\s?(?:元|块|万|美元|欧元|英镑|dollars?|bucks|euros?|pounds?|yuan|rmb)",
    re.IGNORECASE,
)
NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
EN_STOPCAPS = {
    "I",
    "I'm",
    "I've",
    "I'll",
    "I'd",
    "The",
    "A",
    "An",
    "And",
    "But",
    "Or",
    "So",
    "My",
    "We",
    "You",
    "He",
    "She",
    "It",
    "They",
    "This",
    "That",
    "These",
    "Those",
    "What",
    "When",
    "Where",
    "Who",
    "Why",
    "How",
    "Which",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Hey",
    "Hi",
    "Hello",
    "Wow",
    "Oh",
    "Yes",
    "No",
    "Yeah",
    "Thanks",
    "Thank",
    "Please",
    "Remind",
    "Remember",
    "Also",
    "Just",
    "Did",
    "Do",
    "Does",
    "Is",
    "Are",
    "Was",
    "Were",
    "Have",
    "Has",
    "Had",
    "Can",
    "Could",
    "Would",
    "Should",
    "Will",
    "Not",
    "Our",
    "Your",
    "His",
    "Her",
    "Their",
    "Its",
    "If",
    "Then",
    "Well",
    "Anyway",
    "Sure",
    "Okay",
    "Ok",
    "Great",
    "Awesome",
    "Cool",
    "Nice",
    "Good",
    "Glad",
    "Congrats",
    "Aww",
    "Haha",
    "Lol",
    "Let",
    "Let's",
    "Me",
    "Us",
    "Them",
    "There",
    "Here",
    "Today",
    "Tomorrow",
    "Yesterday",
}

# Slots: a newer value replaces the older one for the same subject.
SLOTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "residence",
        re.compile(
            r"住在|搬到|搬去|搬家到|定居|\b(?:live in|lives in|living in|moved to|relocated to|moved from .{1,30} to|now live in|based in)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "employer",
        re.compile(
            r"在.{1,12}(?:工作|上班|任职|实习)|在.{1,12}(?:做|当)(?:.{0,4})(?:经理|工程师|设计师|老师|教师|医生|护士|律师|会计|顾问|总监|主管|程序员|开发|运营|销售|产品|研究员|实习生)|入职|跳槽到|失业|被裁|丢了工作|丢了饭碗|找到了?新工作"
            r"|\b(?:work at|works at|work for|works for|working at|working for|joined|new job at|employed at|hired by"
            r"|(?:lost|losing|quit) (?:my|his|her|their|\w+'s) job|(?:got|was|were|been) laid off|new job)\b",
            re.IGNORECASE,
        ),
    ),
    # "call me Liz" names; "call me at 10pm tomorrow" / "call me back" asks for a call
    ("name", re.compile(r"我叫|名字是|\bmy name is\b|\bcall me\s+(?-i:[A-Z])", re.IGNORECASE)),
    (
        "relationship",
        re.compile(
            r"单身|结婚了|离婚|分手了|订婚|\b(?:single|married|divorced|engaged|broke up|dating)\b",
            re.IGNORECASE,
        ),
    ),
    ("phone_pref", re.compile(r"联系方式|\b(?:contact me (?:at|via|by))\b", re.IGNORECASE)),
)
