"""Edits: each changes the second scene and describes the change (one difference item).

An edit function takes the ``PairContext`` and returns an ``Edit`` or ``None`` when the scene
offers nothing to edit. Texts are produced at the end (``Edit.describe``) because a later camera
mirror changes where things appear in the second image.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Optional

from diffcap_bench.synth import phrases as P
from diffcap_bench.synth.scene import COLS, ROWS, Entity, Scene


@dataclass
class PairContext:
    rng: random.Random
    a: Scene
    b: Scene
    touched: set = field(default_factory=set)  # eids already edited (each entity changes once)
    next_eid: int = 100
    colour_said: bool = False  # an item names a colour seen in the second image
    greyscale: bool = False  # the second image lost its colours: no colour may be named

    @property
    def mirrored(self) -> bool:
        return self.b.camera is not None and self.b.camera[0] == "mirror"

    def where_a(self, e: Entity) -> str:
        return P.POSITIONS[self.a_slot(e)]

    def a_slot(self, e: Entity) -> int:
        for x in self.a.entities:
            if x.eid == e.eid:
                return x.slot
        return e.slot

    def where_b(self, slot: int) -> str:
        """Position phrase of ``slot`` as it appears in the second image (mirror-aware)."""
        if self.mirrored:
            row, col = divmod(slot, COLS)
            slot = row * COLS + (COLS - 1 - col)
        return P.POSITIONS[slot]

    def untouched(self, kinds: tuple[str, ...], pred: Callable[[Entity], bool] = lambda e: True) -> list[Entity]:
        return [e for e in self.b.entities if e.kind in kinds and e.eid not in self.touched and pred(e)
                and any(x.eid == e.eid for x in self.a.entities)]

    def free_both(self) -> list[int]:
        used = {e.slot for e in self.a.entities} | {e.slot for e in self.b.entities}
        return [s for s in range(COLS * ROWS) if s not in used]

    def used_names(self) -> set[tuple[str, str]]:
        return {(e.color, e.shape) for s in (self.a, self.b) for e in s.entities if e.kind == "shape"}

    def new_eid(self) -> int:
        self.next_eid += 1
        return self.next_eid


@dataclass
class Edit:
    category: str
    describe: Callable[[], str]
    ambiguous: bool = False


def name(e: Entity) -> str:
    """Short noun phrase of an entity: "red ball", "person", "sign", "group of blue dots"."""
    if e.kind == "shape":
        return f"{e.color} {e.shape}"
    if e.kind == "figure":
        return "person"
    if e.kind == "group":
        return f"group of {e.color} {e.item}"
    return e.kind  # face, sign


def say(ctx: PairContext, key: str, **fields: str) -> str:
    return P.say(ctx.rng, key, **fields)


def _needs_colour(ctx: PairContext) -> bool:
    """Register that an item names a colour of the second image; False if that is not allowed."""
    if ctx.greyscale:
        return False
    ctx.colour_said = True
    return True


def random_shape(ctx: PairContext, slot: int) -> Optional[Entity]:
    used = ctx.used_names()
    options = [(c, s) for c in P.COLORS for s in P.SHAPES if (c, s) not in used]
    if not options:
        return None
    color, shape = ctx.rng.choice(options)
    style = ctx.rng.choice(P.STYLES) if shape in P.SIMPLE_SHAPES and ctx.rng.random() < 0.3 else "filled"
    return Entity(eid=ctx.new_eid(), kind="shape", slot=slot, color=color, shape=shape, style=style,
                  scale=ctx.rng.choice((0.85, 1.0, 1.0, 1.15)))


# --- object ---

def object_add(ctx: PairContext) -> Optional[Edit]:
    free = ctx.free_both()
    if not free or not _needs_colour(ctx):
        return None
    e = random_shape(ctx, ctx.rng.choice(free))
    if e is None:
        return None
    ctx.b.entities.append(e)
    ctx.touched.add(e.eid)
    return Edit("object", lambda: say(ctx, "object_add", thing=name(e), where=ctx.where_b(e.slot)))


def object_remove(ctx: PairContext) -> Optional[Edit]:
    cands = ctx.untouched(("shape", "figure", "face", "sign"))
    if not cands:
        return None
    e = ctx.rng.choice(cands)
    ctx.b.entities.remove(e)
    ctx.touched.add(e.eid)
    where = ctx.where_a(e)
    return Edit("object", lambda: say(ctx, "object_remove", thing=name(e), where=where))


def object_replace(ctx: PairContext) -> Optional[Edit]:
    cands = ctx.untouched(("shape",))
    if not cands or not _needs_colour(ctx):
        return None
    old = ctx.rng.choice(cands)
    new = random_shape(ctx, old.slot)
    if new is None or new.shape == old.shape:
        return None
    ctx.b.entities[ctx.b.entities.index(old)] = new
    ctx.touched.update({old.eid, new.eid})
    where = ctx.where_a(old)
    return Edit("object", lambda: say(ctx, "object_replace", thing=name(old), new=name(new), where=where))


# --- attribute ---

def attr_color(ctx: PairContext) -> Optional[Edit]:
    cands = ctx.untouched(("shape",))
    if not cands or not _needs_colour(ctx):
        return None
    e = ctx.rng.choice(cands)
    used = ctx.used_names()
    colors = [c for c in P.COLORS if c != e.color and (c, e.shape) not in used]
    old = e.color
    e.color = ctx.rng.choice(colors)
    ctx.touched.add(e.eid)
    where, new = ctx.where_a(e), e.color
    return Edit("attribute", lambda: say(ctx, "attr_color", shape=e.shape, old=old, new=new, where=where))


def attr_size(ctx: PairContext, subtle: bool = False) -> Optional[Edit]:
    cands = ctx.untouched(("shape", "face"))
    if not cands:
        return None
    e = ctx.rng.choice(cands)
    thing = name(e)
    bigger = ctx.rng.random() < 0.5 if e.scale < 1.1 else False
    if subtle:
        e.scale = round(e.scale * (1.1 if bigger else 0.9), 3)
    else:
        e.scale = round(e.scale * (1.35 if bigger else 0.65), 3)
    ctx.touched.add(e.eid)
    where = ctx.where_a(e)
    word = "larger" if bigger else "smaller"
    if subtle:
        return Edit("attribute", lambda: say(ctx, "attr_size_subtle", thing=thing, where=where, bigger=word), True)
    much = ctx.rng.choice(("", "much ", "noticeably "))
    return Edit("attribute", lambda: say(ctx, "attr_size", thing=thing, where=where, bigger=word, much=much))


def attr_style(ctx: PairContext) -> Optional[Edit]:
    cands = ctx.untouched(("shape",), lambda e: e.shape in P.SIMPLE_SHAPES)
    if not cands:
        return None
    e = ctx.rng.choice(cands)
    thing, old = name(e), e.style
    e.style = ctx.rng.choice([s for s in P.STYLES if s != old])
    ctx.touched.add(e.eid)
    where, new = ctx.where_a(e), e.style
    return Edit("attribute", lambda: say(ctx, "attr_style", thing=thing, where=where,
                                         old=P.STYLE_WORDS[old], new=P.STYLE_WORDS[new]))


def attr_figure_color(ctx: PairContext) -> Optional[Edit]:
    cands = ctx.untouched(("figure",))
    if not cands or not _needs_colour(ctx):
        return None
    e = ctx.rng.choice(cands)
    old = e.color
    e.color = ctx.rng.choice([c for c in P.COLORS if c != old])
    ctx.touched.add(e.eid)
    where, new = ctx.where_a(e), e.color
    fig = ctx.rng.choice(P.FIGURE_WORDS)
    return Edit("attribute", lambda: say(ctx, "attr_figure_color", fig=fig, where=where, old=old, new=new))


# --- action_pose, expression, text_symbol, composition ---

def pose(ctx: PairContext) -> Optional[Edit]:
    cands = ctx.untouched(("figure",))
    if not cands:
        return None
    e = ctx.rng.choice(cands)
    old = e.pose
    e.pose = ctx.rng.choice([p for p in P.POSES if p != old])
    ctx.touched.add(e.eid)
    where, new, fig = ctx.where_a(e), e.pose, ctx.rng.choice(P.FIGURE_WORDS)
    return Edit("action_pose", lambda: say(ctx, "pose", fig=fig, where=where, old=P.POSES[old], new=P.POSES[new]))


def expression(ctx: PairContext) -> Optional[Edit]:
    cands = ctx.untouched(("face",))
    if not cands:
        return None
    e = ctx.rng.choice(cands)
    old = e.expression
    e.expression = ctx.rng.choice([x for x in P.EXPRESSIONS if x != old])
    ctx.touched.add(e.eid)
    where, new = ctx.where_a(e), e.expression
    return Edit("expression", lambda: say(ctx, "expression", where=where, old=P.EXPRESSIONS[old],
                                          new=P.EXPRESSIONS[new]))


def sign_text(ctx: PairContext) -> Optional[Edit]:
    cands = ctx.untouched(("sign",))
    if not cands:
        return None
    e = ctx.rng.choice(cands)
    old = e.text
    pool = P.SIGN_NUMBERS if old in P.SIGN_NUMBERS else P.SIGN_WORDS
    e.text = ctx.rng.choice([w for w in pool if w != old])
    ctx.touched.add(e.eid)
    where, new = ctx.where_a(e), e.text
    key = "sign_number" if pool is P.SIGN_NUMBERS else "sign_text"
    return Edit("text_symbol", lambda: say(ctx, key, where=where, old=old, new=new))


def group_count(ctx: PairContext) -> Optional[Edit]:
    cands = ctx.untouched(("group",))
    if not cands or not _needs_colour(ctx):
        return None
    e = ctx.rng.choice(cands)
    old = e.count
    e.count = ctx.rng.choice([n for n in range(2, 6) if abs(n - old) >= 1 and n != old])
    ctx.touched.add(e.eid)
    where, new, color, items = ctx.where_a(e), e.count, e.color, e.item
    return Edit("composition", lambda: say(ctx, "group_count", items=items, color=color, where=where,
                                           old=P.NUMBER_WORDS[old], new=P.NUMBER_WORDS[new]))


def group_layout(ctx: PairContext) -> Optional[Edit]:
    cands = ctx.untouched(("group",), lambda e: e.count >= 3)
    if not cands or not _needs_colour(ctx):
        return None
    e = ctx.rng.choice(cands)
    old = e.layout
    e.layout = ctx.rng.choice([x for x in P.GROUP_LAYOUTS if x != old])
    ctx.touched.add(e.eid)
    where, new, color, items = ctx.where_a(e), e.layout, e.color, e.item
    return Edit("composition", lambda: say(ctx, "group_layout", items=items, color=color, where=where,
                                           old=P.GROUP_LAYOUTS[old], new=P.GROUP_LAYOUTS[new]))


# --- spatial_relation ---

def spatial_swap(ctx: PairContext) -> Optional[Edit]:
    cands = ctx.untouched(("shape", "figure", "face", "sign"))
    if len(cands) < 2:
        return None
    e1, e2 = ctx.rng.sample(cands, 2)
    e1.slot, e2.slot = e2.slot, e1.slot
    ctx.touched.update({e1.eid, e2.eid})
    n1, n2 = name(e1), name(e2)
    return Edit("spatial_relation", lambda: say(ctx, "spatial_swap", thing=n1, other=n2))


def spatial_move(ctx: PairContext) -> Optional[Edit]:
    cands = ctx.untouched(("shape", "figure", "face", "sign"))
    free = ctx.free_both()
    if not cands or not free:
        return None
    e = ctx.rng.choice(cands)
    where = ctx.where_a(e)
    e.slot = ctx.rng.choice(free)
    ctx.touched.add(e.eid)
    thing, to = name(e), e.slot
    return Edit("spatial_relation", lambda: say(ctx, "spatial_move", thing=thing, where=where, to=ctx.where_b(to)))


def spatial_nudge(ctx: PairContext) -> Optional[Edit]:
    cands = ctx.untouched(("shape",))
    if not cands:
        return None
    e = ctx.rng.choice(cands)
    vertical = ctx.rng.random() < 0.5
    sign = ctx.rng.choice((-1, 1))
    if vertical:
        e.dy += 4 * sign
    else:
        e.dx += 4 * sign
    ctx.touched.add(e.eid)
    thing, where = name(e), ctx.where_a(e)

    def direction() -> str:
        if vertical:
            return "down" if sign > 0 else "up"
        right = (sign > 0) != ctx.mirrored
        return "to the right" if right else "to the left"

    return Edit("spatial_relation", lambda: say(ctx, "spatial_nudge", thing=thing, where=where, direction=direction()), True)


# --- background ---

def background_sky(ctx: PairContext) -> Optional[Edit]:
    if ctx.a.sky != ctx.b.sky or not _needs_colour(ctx):
        return None
    old = ctx.a.sky
    ctx.b.sky = ctx.rng.choice([s for s in P.SKIES if s != old])
    new = ctx.b.sky
    return Edit("background", lambda: say(ctx, "background_sky", old=old, new=new))


def background_ground(ctx: PairContext) -> Optional[Edit]:
    if ctx.a.ground != ctx.b.ground or not _needs_colour(ctx):
        return None
    old = ctx.a.ground
    ctx.b.ground = ctx.rng.choice([g for g in P.GROUNDS if g != old])
    new = ctx.b.ground
    return Edit("background", lambda: say(ctx, "background_ground", old=old, new=new))


def background_hills(ctx: PairContext) -> Optional[Edit]:
    if ctx.a.hills != ctx.b.hills:
        return None
    ctx.b.hills = not ctx.a.hills
    key = "background_hills_add" if ctx.b.hills else "background_hills_remove"
    return Edit("background", lambda: say(ctx, key))


# --- camera_viewpoint (at most one per pair) ---

def _camera_free(ctx: PairContext) -> bool:
    return ctx.b.camera is None


def camera_mirror(ctx: PairContext) -> Optional[Edit]:
    # mirrored writing would make "the sign reads OPEN" false for the second image
    if not _camera_free(ctx) or any(e.kind == "sign" for e in ctx.b.entities):
        return None
    ctx.b.camera = ("mirror",)
    return Edit("camera_viewpoint", lambda: say(ctx, "camera_mirror"))


def camera_zoom(ctx: PairContext, subtle: bool = False) -> Optional[Edit]:
    if not _camera_free(ctx):
        return None
    ctx.b.camera = ("zoom", 1.05 if subtle else 1.2)
    key = "camera_zoom_subtle" if subtle else "camera_zoom"
    return Edit("camera_viewpoint", lambda: say(ctx, key), subtle)


def camera_tilt(ctx: PairContext) -> Optional[Edit]:
    if not _camera_free(ctx):
        return None
    deg = ctx.rng.choice((-7, 7))
    ctx.b.camera = ("tilt", deg)
    direction = "counter-clockwise" if deg > 0 else "clockwise"  # PIL rotates counter-clockwise for > 0
    return Edit("camera_viewpoint", lambda: say(ctx, "camera_tilt", direction=direction))


# --- image_property (several per pair, one of each kind) ---

def _prop_free(ctx: PairContext, kind: str) -> bool:
    return all(op[0] != kind for op in ctx.b.properties) and not ctx.greyscale


def prop_brightness(ctx: PairContext, subtle: bool = False) -> Optional[Edit]:
    if not _prop_free(ctx, "brightness"):
        return None
    up = ctx.rng.random() < 0.5
    f = (1.08 if up else 0.93) if subtle else (1.4 if up else 0.6)
    ctx.b.properties.append(("brightness", f))
    word = "brighter" if up else "darker"
    if subtle:
        return Edit("image_property", lambda: say(ctx, "prop_brightness_subtle", brighter=word), True)
    much = ctx.rng.choice(("", "much ", "clearly "))
    return Edit("image_property", lambda: say(ctx, "prop_brightness", brighter=word, much=much))


def prop_contrast(ctx: PairContext) -> Optional[Edit]:
    if not _prop_free(ctx, "contrast"):
        return None
    up = ctx.rng.random() < 0.4
    ctx.b.properties.append(("contrast", 1.6 if up else 0.5))
    change = ctx.rng.choice(("higher", "stronger")) if up else ctx.rng.choice(("lower", "reduced", "weaker"))
    return Edit("image_property", lambda: say(ctx, "prop_contrast", change=change))


def prop_blur(ctx: PairContext) -> Optional[Edit]:
    if not _prop_free(ctx, "blur"):
        return None
    ctx.b.properties.append(("blur", 1.8))
    return Edit("image_property", lambda: say(ctx, "prop_blur"))


def prop_noise(ctx: PairContext) -> Optional[Edit]:
    if not _prop_free(ctx, "noise"):
        return None
    ctx.b.properties.append(("noise", 28))
    return Edit("image_property", lambda: say(ctx, "prop_noise"))


def prop_tint(ctx: PairContext) -> Optional[Edit]:
    if not _prop_free(ctx, "tint"):
        return None
    warm = ctx.rng.random() < 0.5
    ctx.b.properties.append(("tint", (255, 140, 0) if warm else (0, 90, 255)))
    tone = ctx.rng.choice(("warm", "orange")) if warm else ctx.rng.choice(("cool", "blue"))
    return Edit("image_property", lambda: say(ctx, "prop_tint", tone=tone))


def prop_greyscale(ctx: PairContext) -> Optional[Edit]:
    # a colourless second image would make every colour named for it false
    if ctx.colour_said or ctx.greyscale or any(op[0] == "tint" for op in ctx.b.properties):
        return None
    ctx.greyscale = True
    ctx.b.properties.append(("grayscale",))
    return Edit("image_property", lambda: say(ctx, "prop_grayscale"))


EditFn = Callable[[PairContext], Optional[Edit]]

# category -> [(edit, weight)]; subtle variants give the ambiguous items (~10% of all items)
EDITS: dict[str, list[tuple[EditFn, float]]] = {
    "object": [(object_add, 0.4), (object_remove, 0.35), (object_replace, 0.25)],
    "attribute": [(attr_color, 0.4), (attr_size, 0.2), (lambda c: attr_size(c, subtle=True), 0.2),
                  (attr_style, 0.12), (attr_figure_color, 0.08)],
    "action_pose": [(pose, 1.0)],
    "spatial_relation": [(spatial_swap, 0.4), (spatial_move, 0.35), (spatial_nudge, 0.25)],
    "composition": [(group_count, 0.6), (group_layout, 0.4)],
    "text_symbol": [(sign_text, 1.0)],
    "background": [(background_sky, 0.45), (background_ground, 0.35), (background_hills, 0.2)],
    "camera_viewpoint": [(camera_mirror, 0.35), (camera_zoom, 0.3), (lambda c: camera_zoom(c, subtle=True), 0.15),
                         (camera_tilt, 0.2)],
    "image_property": [(prop_brightness, 0.25), (lambda c: prop_brightness(c, subtle=True), 0.15),
                       (prop_contrast, 0.15), (prop_blur, 0.15), (prop_noise, 0.1), (prop_tint, 0.12),
                       (prop_greyscale, 0.08)],
    "expression": [(expression, 1.0)],
}


def pick_edit(rng: random.Random, category: str) -> EditFn:
    fns, weights = zip(*EDITS[category])
    return rng.choices(fns, weights=weights)[0]
