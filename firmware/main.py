# The Pico runs main.py at power-up: the compiled firmware does the rest (firmware/app.py).
import app

app.run()
