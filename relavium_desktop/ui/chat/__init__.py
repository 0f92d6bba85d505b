"""The Chat page and what it needs: sessions, transcript, composer, engine wiring."""
