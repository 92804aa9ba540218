"""One Gradio Blocks per view; ``app.py`` renders each in a tab.

Every view module has ``build(config: data.SpaceConfig) -> gr.Blocks``. A view must be built
outside any other Blocks context (a Blocks created inside one is rendered there at once) and is
then placed with ``blocks.render()``. Handlers are closures over the (immutable) config; all
data work goes through ``data``.
"""
