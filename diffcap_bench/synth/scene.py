"""Scene model and Pillow renderer of the synthetic generator.

A ``Scene`` is plain data: a sky, a ground, optional hills, entities in a 2x4 grid of slots
(shapes, stick figures, faces, signs, groups of dots) and, for the second image, a camera
operation and global image operations applied after drawing. Edits change the data; the
renderer draws whatever the data says, so a description of a data change is true of the
pixels by construction.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

from PIL import Image, ImageDraw, ImageEnhance, ImageFilter, ImageFont, ImageOps

from diffcap_bench.synth.phrases import COLORS, GROUNDS, SKIES

WIDTH, HEIGHT = 256, 192
HORIZON = 112
COLS, ROWS = 4, 2
MARGIN_X, MARGIN_Y = 22, 20  # keeps entities inside the frame after a zoom or tilt
CELL_W = (WIDTH - 2 * MARGIN_X) / COLS
CELL_H = (HEIGHT - 2 * MARGIN_Y) / ROWS
BASE_R = 17  # half size of an entity at scale 1
OUTLINE = (40, 40, 40)


@dataclass
class Entity:
    """One thing in a slot. ``kind`` is shape, figure, face, sign or group."""

    eid: int
    kind: str
    slot: int
    color: str = "red"
    shape: str = ""  # kind == shape
    style: str = "filled"
    scale: float = 1.0
    pose: str = "standing"  # kind == figure
    expression: str = "smiling"  # kind == face
    text: str = ""  # kind == sign
    count: int = 3  # kind == group
    layout: str = "row"
    item: str = "dots"
    dx: int = 0  # small offsets (subtle moves)
    dy: int = 0


@dataclass
class Scene:
    sky: str = "light blue"
    ground: str = "green grass"
    hills: bool = False
    entities: list[Entity] = field(default_factory=list)
    source: str = "synthetic_2d"
    frame_color: str = "orange"  # advertisement frame
    camera: Optional[tuple] = None  # ("mirror",) | ("zoom", factor) | ("tilt", degrees)
    properties: list[tuple] = field(default_factory=list)  # ("brightness", f) ...
    noise_seed: int = 0

    def free_slots(self) -> list[int]:
        used = {e.slot for e in self.entities}
        return [s for s in range(COLS * ROWS) if s not in used]


def slot_center(slot: int) -> tuple[float, float]:
    row, col = divmod(slot, COLS)
    return MARGIN_X + CELL_W * (col + 0.5), MARGIN_Y + CELL_H * (row + 0.5)


# --- entity drawing ---

def _shape_geometry(shape: str, x: float, y: float, r: float):
    """("ellipse", bbox) or ("polygon", points) of a simple shape."""
    if shape == "ball":
        return "ellipse", (x - r, y - r, x + r, y + r)
    if shape == "box":
        k = r * 0.85
        return "polygon", [(x - k, y - k), (x + k, y - k), (x + k, y + k), (x - k, y + k)]
    if shape == "triangle":
        return "polygon", [(x, y - r), (x + r, y + r * 0.8), (x - r, y + r * 0.8)]
    if shape == "diamond":
        return "polygon", [(x, y - r), (x + r * 0.75, y), (x, y + r), (x - r * 0.75, y)]
    if shape == "star":
        pts = []
        for i in range(10):
            rad = r if i % 2 == 0 else r * 0.45
            a = -math.pi / 2 + i * math.pi / 5
            pts.append((x + rad * math.cos(a), y + rad * math.sin(a)))
        return "polygon", pts
    raise ValueError(f"not a simple shape: {shape}")


def _draw_geometry(draw: ImageDraw.ImageDraw, geom, fill=None, outline=None, width=1) -> None:
    kind, xy = geom
    if kind == "ellipse":
        draw.ellipse(xy, fill=fill, outline=outline, width=width)
    else:
        draw.polygon(xy, fill=fill, outline=outline, width=width)


def _draw_simple(img: Image.Image, e: Entity, x: float, y: float, r: float) -> None:
    draw = ImageDraw.Draw(img)
    col = COLORS[e.color]
    geom = _shape_geometry(e.shape, x, y, r)
    if e.style == "outlined":
        _draw_geometry(draw, geom, outline=col, width=3)
        return
    _draw_geometry(draw, geom, fill=col, outline=OUTLINE)
    if e.style == "striped":  # white stripes clipped to the shape through a mask
        mask = Image.new("L", img.size, 0)
        _draw_geometry(ImageDraw.Draw(mask), geom, fill=255)
        stripes = Image.new("L", img.size, 0)
        sd = ImageDraw.Draw(stripes)
        for yy in range(int(y - r), int(y + r) + 1, 6):
            sd.rectangle((x - r, yy, x + r, yy + 2), fill=255)
        img.paste((255, 255, 255), mask=Image.fromarray(_and(mask, stripes)))


def _and(a: Image.Image, b: Image.Image):
    import numpy as np

    return np.minimum(np.asarray(a), np.asarray(b))


def _draw_complex(draw: ImageDraw.ImageDraw, e: Entity, x: float, y: float, r: float) -> None:
    col = COLORS[e.color]
    if e.shape == "house":
        draw.rectangle((x - r * 0.8, y - r * 0.1, x + r * 0.8, y + r), fill=col, outline=OUTLINE)
        draw.polygon([(x - r, y - r * 0.1), (x, y - r), (x + r, y - r * 0.1)], fill=(120, 50, 40), outline=OUTLINE)
        draw.rectangle((x - r * 0.2, y + r * 0.4, x + r * 0.2, y + r), fill=(90, 60, 40))
    elif e.shape == "tree":
        draw.rectangle((x - r * 0.15, y, x + r * 0.15, y + r), fill=(110, 75, 50))
        draw.ellipse((x - r * 0.8, y - r, x + r * 0.8, y + r * 0.3), fill=col, outline=OUTLINE)
    elif e.shape == "flower":
        draw.line((x, y, x, y + r), fill=(46, 140, 60), width=3)
        for i in range(6):
            a = i * math.pi / 3
            px, py = x + r * 0.45 * math.cos(a), y - r * 0.3 + r * 0.45 * math.sin(a)
            draw.ellipse((px - r * 0.3, py - r * 0.3, px + r * 0.3, py + r * 0.3), fill=col)
        draw.ellipse((x - r * 0.2, y - r * 0.5, x + r * 0.2, y - r * 0.1), fill=(250, 220, 60))
    elif e.shape == "car":
        draw.rectangle((x - r, y - r * 0.1, x + r, y + r * 0.5), fill=col, outline=OUTLINE)
        draw.rectangle((x - r * 0.5, y - r * 0.55, x + r * 0.45, y - r * 0.1), fill=col, outline=OUTLINE)
        for wx in (x - r * 0.55, x + r * 0.55):
            draw.ellipse((wx - r * 0.25, y + r * 0.3, wx + r * 0.25, y + r * 0.8), fill=(20, 20, 20))


# arm and leg angles in degrees from "straight down", outward positive: (left arm, right arm, left leg, right leg)
POSE_ANGLES = {
    "standing": (15, 15, 12, 12),
    "waving": (15, 160, 12, 12),
    "arms_up": (155, 155, 12, 12),
    "arms_out": (90, 90, 12, 12),
    "pointing": (15, 90, 12, 12),
    "kicking": (35, 35, 8, 80),
}


def _draw_figure(draw: ImageDraw.ImageDraw, e: Entity, x: float, y: float, s: float) -> None:
    col = COLORS[e.color]
    head_y, neck, hip = y - 20 * s, y - 14 * s, y + 6 * s
    draw.ellipse((x - 6 * s, head_y - 6 * s, x + 6 * s, head_y + 6 * s), fill=col)
    draw.line((x, neck, x, hip), fill=col, width=3)
    la, ra, ll, rl = POSE_ANGLES[e.pose]
    shoulder = neck + 3 * s
    for side, ang, length, (ox, oy) in ((-1, la, 13, (x, shoulder)), (1, ra, 13, (x, shoulder)),
                                        (-1, ll, 16, (x, hip)), (1, rl, 16, (x, hip))):
        a = math.radians(ang)
        draw.line((ox, oy, ox + side * length * s * math.sin(a), oy + length * s * math.cos(a)), fill=col, width=3)


def _draw_face(draw: ImageDraw.ImageDraw, e: Entity, x: float, y: float, r: float) -> None:
    draw.ellipse((x - r, y - r, x + r, y + r), fill=COLORS[e.color], outline=OUTLINE, width=2)
    ex, ey, er = r * 0.38, y - r * 0.25, max(2.0, r * 0.12)
    ink = OUTLINE
    if e.expression == "surprised":
        er *= 1.5
    for side in (-1, 1):
        if e.expression == "winking" and side == 1:
            draw.line((x + ex - er, ey, x + ex + er, ey), fill=ink, width=2)
        else:
            draw.ellipse((x + side * ex - er, ey - er, x + side * ex + er, ey + er), fill=ink)
    if e.expression == "angry":
        for side in (-1, 1):
            draw.line((x + side * ex * 1.6, ey - r * 0.3, x + side * ex * 0.4, ey - r * 0.12), fill=ink, width=2)
    m = r * 0.5
    if e.expression in ("smiling", "winking"):
        draw.arc((x - m, y - m * 0.6, x + m, y + m * 0.9), 20, 160, fill=ink, width=2)
    elif e.expression in ("frowning", "angry"):
        draw.arc((x - m, y + m * 0.3, x + m, y + m * 1.5), 200, 340, fill=ink, width=2)
    elif e.expression == "neutral":
        draw.line((x - m * 0.7, y + m * 0.6, x + m * 0.7, y + m * 0.6), fill=ink, width=2)
    elif e.expression == "surprised":
        draw.ellipse((x - m * 0.35, y + m * 0.2, x + m * 0.35, y + m * 0.95), outline=ink, width=2)


_FONT = None


def _font():
    global _FONT
    if _FONT is None:
        _FONT = ImageFont.load_default(size=12)
    return _FONT


def _draw_sign(draw: ImageDraw.ImageDraw, e: Entity, x: float, y: float, s: float) -> None:
    w, h = 24 * s, 10 * s
    draw.line((x, y, x, y + 22 * s), fill=(110, 75, 50), width=3)
    draw.rectangle((x - w, y - h - 4, x + w, y + h - 4), fill=COLORS[e.color], outline=OUTLINE, width=2)
    draw.rectangle((x - w + 3, y - h - 1, x + w - 3, y + h - 7), fill=(255, 255, 255))
    draw.text((x, y - 4), e.text, fill=(20, 20, 20), font=_font(), anchor="mm")


def _draw_group(draw: ImageDraw.ImageDraw, e: Entity, x: float, y: float) -> None:
    step, rr = 9, 3.5
    if e.layout == "row":
        pts = [(x + (i - (e.count - 1) / 2) * step, y) for i in range(e.count)]
    elif e.layout == "column":
        pts = [(x, y + (i - (e.count - 1) / 2) * step) for i in range(e.count)]
    else:  # grid: two rows
        per_row = math.ceil(e.count / 2)
        pts = [(x + (i % per_row - (per_row - 1) / 2) * step, y + (i // per_row - 0.5) * step) for i in range(e.count)]
    col = COLORS[e.color]
    for px, py in pts:
        box = (px - rr, py - rr, px + rr, py + rr)
        if e.item == "dots":
            draw.ellipse(box, fill=col)
        else:
            draw.rectangle(box, fill=col)


def draw_entity(img: Image.Image, e: Entity, shadows: bool = False) -> None:
    x, y = slot_center(e.slot)
    x, y = x + e.dx, y + e.dy
    r = BASE_R * e.scale
    draw = ImageDraw.Draw(img)
    if shadows:  # the "3D" look of synthetic_3d pairs: a soft contact shadow
        draw.ellipse((x - r, y + r * 0.85, x + r, y + r * 1.25), fill=(90, 90, 90))
    if e.kind == "shape":
        if e.shape in ("ball", "box", "triangle", "star", "diamond"):
            _draw_simple(img, e, x, y, r)
        else:
            _draw_complex(draw, e, x, y, r)
    elif e.kind == "figure":
        _draw_figure(draw, e, x, y, e.scale)
    elif e.kind == "face":
        _draw_face(draw, e, x, y, r)
    elif e.kind == "sign":
        _draw_sign(draw, e, x, y, e.scale)
    elif e.kind == "group":
        _draw_group(draw, e, x, y)
    else:
        raise ValueError(f"unknown entity kind {e.kind}")


# --- whole image ---

def render_scene(scene: Scene) -> Image.Image:
    """Draw the scene, then apply its camera operation and image operations (in that order)."""
    img = Image.new("RGB", (WIDTH, HEIGHT), SKIES[scene.sky])
    draw = ImageDraw.Draw(img)
    if scene.hills:
        for cx, hw, hh in ((50, 70, 34), (140, 60, 26), (220, 75, 38)):
            draw.polygon([(cx - hw, HORIZON), (cx, HORIZON - hh), (cx + hw, HORIZON)], fill=(90, 130, 90))
    draw.rectangle((0, HORIZON, WIDTH, HEIGHT), fill=GROUNDS[scene.ground])
    for e in scene.entities:
        draw_entity(img, e, shadows=scene.source == "synthetic_3d")
    if scene.source == "video_frame":  # letterbox bars of a video still
        draw.rectangle((0, 0, WIDTH, 7), fill=(0, 0, 0))
        draw.rectangle((0, HEIGHT - 8, WIDTH, HEIGHT), fill=(0, 0, 0))
    elif scene.source == "advertisement":  # a coloured frame around the ad
        draw.rectangle((0, 0, WIDTH - 1, HEIGHT - 1), outline=COLORS[scene.frame_color], width=5)
    img = apply_camera(img, scene.camera)
    for op in scene.properties:
        img = apply_property(img, op, scene.noise_seed)
    return img


def apply_camera(img: Image.Image, op: Optional[tuple]) -> Image.Image:
    if op is None:
        return img
    if op[0] == "mirror":
        return ImageOps.mirror(img)
    if op[0] == "zoom":  # centre crop, resized back: objects stay inside thanks to the margins
        f = op[1]
        w, h = img.size
        cw, ch = w / f, h / f
        box = ((w - cw) / 2, (h - ch) / 2, (w + cw) / 2, (h + ch) / 2)
        return img.resize((w, h), Image.Resampling.BILINEAR, box=box)
    if op[0] == "tilt":
        return img.rotate(op[1], resample=Image.Resampling.BILINEAR, fillcolor=(0, 0, 0))
    raise ValueError(f"unknown camera op {op}")


def apply_property(img: Image.Image, op: tuple, seed: int) -> Image.Image:
    name = op[0]
    if name == "brightness":
        return ImageEnhance.Brightness(img).enhance(op[1])
    if name == "contrast":
        return ImageEnhance.Contrast(img).enhance(op[1])
    if name == "blur":
        return img.filter(ImageFilter.GaussianBlur(op[1]))
    if name == "tint":
        return Image.blend(img, Image.new("RGB", img.size, op[1]), 0.28)
    if name == "grayscale":
        return ImageOps.grayscale(img).convert("RGB")
    if name == "noise":
        return _add_noise(img, op[1], seed)
    raise ValueError(f"unknown image op {op}")


def _add_noise(img: Image.Image, amplitude: int, seed: int) -> Image.Image:
    """Deterministic grain from integer hashing (no RNG whose stream could change between versions)."""
    import numpy as np

    a = np.asarray(img, dtype=np.int32)
    h, w, c = a.shape
    yy, xx, cc = np.meshgrid(np.arange(h, dtype=np.uint32), np.arange(w, dtype=np.uint32),
                             np.arange(c, dtype=np.uint32), indexing="ij")
    v = (xx * np.uint32(73856093)) ^ (yy * np.uint32(19349663)) ^ (cc * np.uint32(83492791)) ^ np.uint32(seed & 0xFFFFFFFF)
    v = (v ^ (v >> np.uint32(13))) * np.uint32(1274126177)
    v = v ^ (v >> np.uint32(16))
    noise = (v % np.uint32(2 * amplitude + 1)).astype(np.int32) - amplitude
    return Image.fromarray(np.clip(a + noise, 0, 255).astype(np.uint8), "RGB")
