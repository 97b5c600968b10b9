"""The live table as a Telegram Mini App (issue 18): who is asking (``auth``), and, from the
app's read model (``app.live``), what they may see."""
