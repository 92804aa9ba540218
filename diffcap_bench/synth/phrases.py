"""Vocabulary and sentence templates of the synthetic generator (data, in one place).

Templates are ``str.format`` strings. Shared fields: ``{A}``/``{B}`` name the first and second
image ("the first image", "image B", ...), ``{thing}`` is an entity ("red ball"), ``{where}``
a position phrase ("in the top left corner"). The generator picks a template at random, fills
it and capitalises the first letter, so item texts vary in wording like human annotations.
"""
from __future__ import annotations

import random

# --- vocabulary ---

COLORS: dict[str, tuple[int, int, int]] = {
    "red": (214, 48, 49),
    "blue": (41, 98, 255),
    "green": (46, 160, 67),
    "yellow": (250, 204, 21),
    "orange": (245, 124, 0),
    "purple": (142, 68, 173),
    "pink": (236, 112, 175),
    "brown": (121, 85, 61),
    "black": (33, 33, 33),
    "teal": (0, 150, 136),
}

SIMPLE_SHAPES = ("ball", "box", "triangle", "star", "diamond")  # can be filled, outlined or striped
COMPLEX_SHAPES = ("house", "tree", "flower", "car")  # always filled
SHAPES = SIMPLE_SHAPES + COMPLEX_SHAPES
STYLES = ("filled", "outlined", "striped")
STYLE_WORDS = {"filled": "solid", "outlined": "outlined (hollow)", "striped": "striped"}

SKIES: dict[str, tuple[int, int, int]] = {
    "light blue": (173, 216, 240),
    "pale yellow": (250, 240, 190),
    "soft pink": (248, 205, 215),
    "lavender": (215, 205, 240),
    "pale grey": (215, 215, 215),
    "dark blue": (40, 50, 95),
}
GROUNDS: dict[str, tuple[int, int, int]] = {
    "green grass": (120, 190, 100),
    "sand": (225, 200, 140),
    "grey pavement": (150, 150, 155),
    "white snow": (245, 245, 250),
    "brown soil": (150, 110, 80),
}

POSES: dict[str, str] = {  # pose key -> how it reads in a sentence ("a person ...")
    "standing": "standing with both arms down",
    "waving": "waving with one arm raised",
    "arms_up": "raising both arms above the head",
    "arms_out": "stretching both arms out to the sides",
    "pointing": "pointing sideways with one arm",
    "kicking": "kicking one leg out to the side",
}
FIGURE_WORDS = ("person", "stick figure", "figure")

EXPRESSIONS: dict[str, str] = {  # expression key -> adjective phrase
    "smiling": "smiling",
    "frowning": "frowning",
    "neutral": "expressionless",
    "surprised": "surprised",
    "winking": "winking",
    "angry": "angry",
}

SIGN_WORDS = ("OPEN", "SHUT", "SALE", "EXIT", "STOP", "CAFE", "HOTEL", "PARK", "TAXI", "PIZZA", "BUS", "ZOO")
SIGN_NUMBERS = ("7", "12", "24", "42", "50", "99", "100", "365")

GROUP_ITEMS = ("dots", "squares")
GROUP_LAYOUTS = {"row": "in a horizontal row", "column": "in a vertical column", "grid": "in a small grid"}
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")

# slot -> position phrase; slots are 2 rows x 4 columns, numbered row by row
POSITIONS = (
    "in the top left corner", "at the top, left of centre", "at the top, right of centre", "in the top right corner",
    "in the bottom left corner", "at the bottom, left of centre", "at the bottom, right of centre",
    "in the bottom right corner",
)

IMAGE_NAMES = (  # (first, second) image names used in one item text
    ("the first image", "the second image"),
    ("image A", "image B"),
    ("the first picture", "the second picture"),
    ("the original", "the edited version"),
    ("the before image", "the after image"),
)

# --- templates per edit (key = edit name) ---

TEMPLATES: dict[str, tuple[str, ...]] = {
    "object_add": (
        "{a_thing} has been added {where} in {B}.",
        "{B} shows an extra {thing} {where}.",
        "There is now {a_thing} {where} that is not in {A}.",
        "A new {thing} appears {where}.",
        "{B} contains {a_thing} {where}; {A} has nothing there.",
    ),
    "object_remove": (
        "The {thing} {where} has been removed in {B}.",
        "The {thing} {where} of {A} is missing from {B}.",
        "{B} no longer has the {thing} {where}.",
        "The {thing} that was {where} is gone.",
    ),
    "object_replace": (
        "The {thing} {where} has been replaced by {a_new}.",
        "{where_cap}, {a_new} now stands where {A} has {a_thing}.",
        "Instead of {a_thing} {where}, {B} shows {a_new}.",
        "The {thing} {where} was swapped for {a_new}.",
    ),
    "attr_color": (
        "The {shape} {where} changed colour from {old} to {new}.",
        "The {old} {shape} {where} is {new} in {B}.",
        "In {B} the {shape} {where} is {new} instead of {old}.",
        "The colour of the {shape} {where} is different: {old} in {A}, {new} in {B}.",
    ),
    "attr_size": (
        "The {thing} {where} is {much}{bigger} in {B}.",
        "The {thing} {where} has become {much}{bigger}.",
        "In {B} the {thing} {where} looks {much}{bigger} than in {A}.",
    ),
    "attr_size_subtle": (
        "The {thing} {where} may be slightly {bigger} in {B}.",
        "The {thing} {where} looks perhaps a little {bigger}.",
    ),
    "attr_style": (
        "The {thing} {where} is {new} in {B} rather than {old}.",
        "The {thing} {where} changed from {old} to {new}.",
        "In {A} the {thing} {where} is {old}; in {B} it is {new}.",
    ),
    "attr_figure_color": (
        "The {fig} {where} is drawn in {new} instead of {old}.",
        "The colour of the {fig} {where} changed from {old} to {new}.",
    ),
    "pose": (
        "The {fig} {where} is {old} in {A} but {new} in {B}.",
        "The {fig} {where} changed pose: it is now {new}.",
        "In {B} the {fig} {where} is {new} instead of {old}.",
        "The {fig} {where} was {old} and is now {new}.",
    ),
    "spatial_swap": (
        "The {thing} and the {other} have swapped places.",
        "The positions of the {thing} and the {other} are exchanged in {B}.",
        "In {B} the {thing} sits where the {other} was, and the other way round.",
    ),
    "spatial_move": (
        "The {thing} moved from {where} to {to}.",
        "The {thing} that is {where} in {A} is {to} in {B}.",
        "In {B} the {thing} has been moved {to}.",
    ),
    "spatial_nudge": (
        "The {thing} {where} may have shifted slightly {direction}.",
        "The {thing} {where} seems a little further {direction} in {B}.",
    ),
    "group_count": (
        "The group of {items} {where} has {old} in {A} and {new} in {B}.",
        "There are {new} {items} {where} in {B} instead of {old}.",
        "The number of {color} {items} {where} changed from {old} to {new}.",
    ),
    "group_layout": (
        "The {color} {items} {where} are arranged {new} in {B} instead of {old}.",
        "The {items} {where} changed arrangement: {old} before, {new} after.",
        "In {B} the {color} {items} {where} are laid out {new}.",
    ),
    "sign_text": (
        "The sign {where} reads \"{old}\" in {A} and \"{new}\" in {B}.",
        "The text on the sign {where} changed from {old} to {new}.",
        "In {B} the sign {where} says \"{new}\" instead of \"{old}\".",
        "The word on the sign {where} is different: {new} replaces {old}.",
    ),
    "sign_number": (
        "The number on the sign {where} changed from {old} to {new}.",
        "The sign {where} shows {new} in {B} instead of {old}.",
        "In {A} the sign {where} says {old}; in {B} it says {new}.",
    ),
    "background_sky": (
        "The sky changes from {old} to {new}.",
        "The background sky is {new} in {B} instead of {old}.",
        "In {B} the sky behind the scene is {new} rather than {old}.",
    ),
    "background_ground": (
        "The ground is {new} in {B} instead of {old}.",
        "The ground changed from {old} to {new}.",
        "{B} shows {new} on the ground where {A} shows {old}.",
    ),
    "background_hills_add": (
        "Hills have appeared on the horizon in {B}.",
        "{B} shows a row of hills in the background.",
    ),
    "background_hills_remove": (
        "The hills on the horizon are gone in {B}.",
        "{A} has hills in the background; {B} does not.",
    ),
    "camera_mirror": (
        "{B} is a mirror image of {A}, flipped left to right.",
        "The whole scene is mirrored horizontally.",
        "The view is flipped: left and right are swapped in {B}.",
    ),
    "camera_zoom": (
        "{B} is zoomed in compared to {A}.",
        "The camera is closer in {B}, so the scene looks zoomed in and cropped at the edges.",
        "{B} is a tighter crop of the scene.",
    ),
    "camera_zoom_subtle": (
        "{B} may be very slightly zoomed in.",
        "The framing of {B} seems a touch tighter.",
    ),
    "camera_tilt": (
        "The camera is tilted in {B}, so the scene appears rotated {direction}.",
        "{B} is rotated slightly {direction}.",
        "The horizon is no longer level in {B}: the view is rotated {direction}.",
    ),
    "prop_brightness": (
        "{B} is {much}{brighter} than {A}.",
        "The whole image is {much}{brighter} in {B}.",
        "Overall, {B} looks {much}{brighter}.",
    ),
    "prop_brightness_subtle": (
        "{B} might be a little {brighter} overall.",
        "The overall brightness may differ slightly: {B} looks a touch {brighter}.",
    ),
    "prop_contrast": (
        "{B} has {change} contrast.",
        "The contrast is {change} in {B}.",
    ),
    "prop_blur": (
        "{B} is blurry.",
        "{B} is out of focus compared to the sharp {A}.",
        "Everything in {B} looks blurred.",
    ),
    "prop_noise": (
        "{B} has visible grain or noise.",
        "Noise has been added to {B}.",
        "{B} looks grainy.",
    ),
    "prop_tint": (
        "{B} has a {tone} colour tint.",
        "The colours of {B} are shifted towards a {tone} tone.",
        "A {tone} tint covers {B}.",
    ),
    "prop_grayscale": (
        "{B} is black and white.",
        "{B} has lost its colour and is in greyscale.",
        "Unlike {A}, {B} is monochrome.",
    ),
    "expression": (
        "The face {where} is {old} in {A} but {new} in {B}.",
        "The face {where} changed expression: now {new}.",
        "In {B} the face {where} is {new} instead of {old}.",
    ),
}


def with_article(noun: str) -> str:
    """``"an orange ball"``, ``"a red box"``.

    >>> with_article("orange ball"), with_article("red box")
    ('an orange ball', 'a red box')
    """
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def say(rng: random.Random, key: str, **fields: str) -> str:
    """Fill a random template of ``key`` and capitalise its first letter.

    >>> say(random.Random(0), "camera_mirror")[0].isupper()
    True
    """
    first, second = rng.choice(IMAGE_NAMES)
    fields.setdefault("A", first)
    fields.setdefault("B", second)
    for name in ("thing", "new"):
        if name in fields:
            fields.setdefault(f"a_{name}", with_article(fields[name]))
    if "where" in fields:
        fields.setdefault("where_cap", fields["where"][:1].upper() + fields["where"][1:])
    text = rng.choice(TEMPLATES[key]).format(**fields)
    return text[:1].upper() + text[1:]
