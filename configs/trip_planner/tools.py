"""Tools of the trip planner demo: record the trip request, find sights, estimate the cost.

The data is a small table in this module, so the demo runs offline and gives the same answers
every time.
"""

from __future__ import annotations

from typing import Any

from yadk.tools import ToolContext

CITIES: dict[str, dict[str, Any]] = {
    "lisbon": {
        "country": "Portugal",
        "hotel_eur_per_night": 95,
        "food_eur_per_day": 40,
        "attractions": [
            "Belém Tower and the Jerónimos Monastery",
            "Alfama on foot, ending at the Miradouro da Senhora do Monte",
            "Tram 28 across the old town",
            "LX Factory for lunch and bookshops",
            "A day trip to Sintra",
        ],
    },
    "porto": {
        "country": "Portugal",
        "hotel_eur_per_night": 80,
        "food_eur_per_day": 35,
        "attractions": [
            "The Ribeira waterfront and the Dom Luís I Bridge",
            "Livraria Lello and the Clérigos Tower",
            "A port cellar tour in Vila Nova de Gaia",
            "Serralves museum and park",
        ],
    },
}


def _city(name: str) -> dict[str, Any] | None:
    return CITIES.get(name.strip().lower())


def record_trip(
    destination: str, days: int, budget_eur: float, tool_context: ToolContext
) -> dict[str, Any]:
    """Record the trip the traveller asked for: where, for how many days, and the total budget."""
    city = destination.strip().title()
    tool_context.state["destination"] = city
    tool_context.state["days"] = days
    tool_context.state["budget_eur"] = budget_eur
    known = _city(city) is not None
    return {
        "recorded": True,
        "destination": city,
        "days": days,
        "budget_eur": budget_eur,
        "known_city": known,
    }


def find_attractions(city: str) -> dict[str, Any]:
    """The best-known sights of a city, most popular first."""
    data = _city(city)
    if data is None:
        return {
            "error": f"No guide for {city!r} yet. Known cities: {', '.join(sorted(CITIES)).title()}."
        }
    return {"city": city.strip().title(), "attractions": data["attractions"]}


def estimate_cost(city: str, days: int) -> dict[str, Any]:
    """Estimate the cost of staying `days` days in `city`: hotel nights plus food, in euros."""
    data = _city(city)
    if data is None:
        return {"error": f"No prices for {city!r} yet."}
    nights = max(days - 1, 1)
    hotel = nights * data["hotel_eur_per_night"]
    food = days * data["food_eur_per_day"]
    return {"nights": nights, "hotel_eur": hotel, "food_eur": food, "total_eur": hotel + food}
