print("evroute")
